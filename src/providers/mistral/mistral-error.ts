import { z } from 'zod';
import { readGenericErrorMessage } from '../http/upstream-client.ts';

const ValidationDetailSchema = z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])).nullish(), msg: z.string().nullish() }).loose());

const MistralErrorBodySchema = z
  .object({
    message: z.union([z.string(), z.object({ detail: ValidationDetailSchema.nullish() }).loose()]).nullish(),
    detail: ValidationDetailSchema.nullish(),
  })
  .loose();

/**
 * Error-body reader for the shared HTTP client: Mistral answers `{"object": "error", "message": "…"}`,
 * and a refused field as a validation list (`message.detail` or `detail`: `[{loc, msg}]`), read here as `body.field: msg`.
 */
export function readMistralErrorMessage(body: unknown): string | undefined {
  const parsed = MistralErrorBodySchema.safeParse(body);
  if (!parsed.success) return readGenericErrorMessage(body);
  const { message, detail } = parsed.data;
  if (typeof message === 'string') return message;
  const items = (typeof message === 'object' ? message?.detail : undefined) ?? detail;
  if (items == null || items.length === 0) return readGenericErrorMessage(body);
  return items.map((item) => `${(item.loc ?? []).join('.')}: ${item.msg ?? 'invalid'}`).join('; ');
}
