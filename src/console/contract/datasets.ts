import { z } from 'zod';
import { caseExpectationsSchema } from '../../evaluation/case-expectations.ts';
import { CaseFieldsSchema, CasePatchSchema } from '../../evaluation/case-fields.ts';
import { NewDatasetSchema } from '../../evaluation/dataset-fields.ts';

/** Ids as the server makes them (`ds_…`, `case_…`) or a dataset's name: anything else names nothing. */
const PathIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'letters, digits, ".", "_" and "-", at most 100');

export const DatasetParamsSchema = z.object({ id: PathIdSchema });
export const CaseParamsSchema = z.object({ id: PathIdSchema, caseId: PathIdSchema });

export const CreateDatasetSchema = NewDatasetSchema;
export type CreateDatasetInput = z.infer<typeof CreateDatasetSchema>;

export const AddCaseSchema = CaseFieldsSchema;
export type AddCaseInput = z.infer<typeof AddCaseSchema>;

export const EditCaseSchema = CasePatchSchema;
export type EditCaseInput = z.infer<typeof EditCaseSchema>;

export const CaseListQuerySchema = z.strictObject({
  /** The id of the last case of the previous page (`next_cursor`). */
  cursor: PathIdSchema.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/**
 * "Add to dataset" from production: a response or a run of the account, optionally one
 * conversation item in it (or a conversation item alone). The case takes the turn's input
 * with the conversation so far, and its answer as the reference.
 */
export const CaseFromRunSchema = z
  .strictObject({
    response_id: PathIdSchema.optional(),
    run_id: PathIdSchema.optional(),
    conversation_id: PathIdSchema.optional(),
    item_id: PathIdSchema.optional(),
    tags: CaseFieldsSchema.shape.tags,
  })
  .refine((body) => body.response_id !== undefined || body.run_id !== undefined || body.item_id !== undefined, {
    message: 'name a response_id, a run_id or an item_id',
    path: ['run_id'],
  });
export type CaseFromRunInput = z.infer<typeof CaseFromRunSchema>;

export const DatasetViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  case_count: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DatasetView = z.infer<typeof DatasetViewSchema>;

export const DatasetListSchema = z.object({ data: z.array(DatasetViewSchema) });

const CaseInputViewSchema = z.union([z.string(), z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() }))]);

export const CaseViewSchema = z.object({
  id: z.string(),
  dataset_id: z.string(),
  input: CaseInputViewSchema,
  reference: z.string().nullable(),
  expect: caseExpectationsSchema.nullable(),
  tags: z.array(z.string()),
  source: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CaseView = z.infer<typeof CaseViewSchema>;

export const CasePageSchema = z.object({ data: z.array(CaseViewSchema), next_cursor: z.string().nullable() });
export type CasePage = z.infer<typeof CasePageSchema>;

export const ImportResultSchema = z.object({ imported: z.number(), dataset: DatasetViewSchema });
export type ImportResult = z.infer<typeof ImportResultSchema>;

/** The file's name, kept as the cases' source. */
export const ImportQuerySchema = z.strictObject({ file: z.string().min(1).max(200).optional() });

/** The content types an import body may have: JSON Lines by either name, or plain text. */
export const JSONL_CONTENT_TYPES = ['application/x-ndjson', 'application/jsonl', 'application/jsonlines'] as const;
/** The largest file an import takes. */
export const IMPORT_LIMIT_BYTES = 20 * 1024 * 1024;
