import { z } from 'zod';

/** A dataset's name: what the CLI and the API address it by, unique in its account. */
export const DatasetNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'letters, digits, ".", "_" and "-", starting with a letter or digit, at most 100');

export const NewDatasetSchema = z.strictObject({
  name: DatasetNameSchema,
  description: z.string().max(2_000).optional(),
});
export type NewDataset = z.infer<typeof NewDatasetSchema>;
