import { z } from 'zod';

/**
 * `POST /v1/embeddings` as the official OpenAI client sends it. Strict: an unknown
 * field is a 400 naming it. Token arrays (`number[]`, `number[][]`) are part of
 * OpenAI's wire format, so they parse here and are refused by the route with a
 * message that says why (see embeddings-route.ts), not as a shapeless type error.
 */
const TokenArray = z.array(z.number().int().nonnegative()).min(1);

export const EmbeddingsRequestSchema = z.strictObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()).min(1), TokenArray, z.array(TokenArray).min(1)]),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().positive().optional(),
  user: z.string().optional(),
});
export type EmbeddingsRequest = z.infer<typeof EmbeddingsRequestSchema>;

/** The text inputs, or `undefined` when the caller sent token ids. */
export function textInputs(input: EmbeddingsRequest['input']): string[] | undefined {
  if (typeof input === 'string') return [input];
  const texts = input.filter((item): item is string => typeof item === 'string');
  return texts.length === input.length ? texts : undefined;
}
