import { z } from 'zod';

/** A catalog model as the console shows it (the `/v1/models` entry, loosely typed where it is open-ended). */
export const ConsoleModelSchema = z
  .object({
    id: z.string(),
    name: z.string().optional(),
    context_length: z.number().nullable().optional(),
    capabilities: z.array(z.string()).optional(),
    pricing: z.record(z.string(), z.unknown()).optional(),
    media_params_schema: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .loose();
export type ConsoleModel = z.infer<typeof ConsoleModelSchema>;
export const ModelListSchema = z.object({ data: z.array(ConsoleModelSchema) });
