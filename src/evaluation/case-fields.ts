import { z } from 'zod';
import { caseExpectationsSchema } from './case-expectations.ts';

/** Bounds of one case: room for a long conversation, not for a data dump. */
export const CASE_TEXT_LIMIT = 100_000;
export const CASE_MESSAGES_LIMIT = 200;
export const CASE_TAGS_LIMIT = 20;

export const CaseMessageSchema = z.strictObject({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string().max(CASE_TEXT_LIMIT),
});
export type CaseMessage = z.infer<typeof CaseMessageSchema>;

/** One user message, or the conversation so far (the last message is what the agent answers). */
export const CaseInputSchema = z.union([
  z.string().min(1).max(CASE_TEXT_LIMIT),
  z
    .array(CaseMessageSchema)
    .min(1)
    .max(CASE_MESSAGES_LIMIT)
    .refine((messages) => messages.some((message) => message.role === 'user'), 'a conversation needs at least one user message'),
]);
export type CaseInput = z.infer<typeof CaseInputSchema>;

export const CaseTagSchema = z.string().regex(/^[^\s,][^,]{0,63}$/, 'a tag is 1 to 64 characters, without commas, not starting with a space');
export const CaseTagsSchema = z.array(CaseTagSchema).max(CASE_TAGS_LIMIT);

/** Where a case came from: a response, a run, a conversation turn, or a file. */
export const CaseSourceSchema = z.looseObject({
  response_id: z.string().optional(),
  run_id: z.string().optional(),
  conversation_id: z.string().optional(),
  item_id: z.string().optional(),
  file: z.string().optional(),
});
export type CaseSource = z.infer<typeof CaseSourceSchema>;

/** A case as people write it: one line of a JSONL file, or the body that adds a case. */
export const CaseFieldsSchema = z.strictObject({
  input: CaseInputSchema,
  reference: z.string().max(CASE_TEXT_LIMIT).nullish(),
  expect: caseExpectationsSchema.nullish(),
  tags: CaseTagsSchema.optional(),
});
export type CaseFields = z.infer<typeof CaseFieldsSchema>;

/** An edit of a case: the fields given replace the case's; null clears a reference or expectations. */
export const CasePatchSchema = CaseFieldsSchema.partial();
export type CasePatch = z.infer<typeof CasePatchSchema>;
