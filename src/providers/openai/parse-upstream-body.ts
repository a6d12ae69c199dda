/** Validates an upstream JSON body against its wire schema, failing as a non-retryable 502. */
import type { z } from 'zod';
import { UpstreamError } from '../upstream-error.ts';

export function parseUpstreamBody<Schema extends z.ZodType>(schema: Schema, body: unknown, what: string): z.infer<Schema> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new UpstreamError(`${what} body did not match the expected shape: ${parsed.error.message}`, {
    status: 502,
    retryable: false,
    upstreamMessage: `upstream returned an unexpected ${what} body`,
  });
}
