import type { z } from 'zod';
import { JunctionError } from '../core/errors.ts';

/**
 * Validates a request body (or query) against a zod schema at the edge. The first
 * issue becomes a 400 whose `param` names the offending field by its wire path.
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown, what = 'request body'): z.infer<Schema> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new JunctionError('invalid_request', `Invalid ${what}.`);
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const path = [...issue.path, ...keys.slice(0, 1)].map(String);
  const param = path.length > 0 ? path.join('.') : null;
  const message =
    issue.code === 'unrecognized_keys'
      ? `Unknown field ${keys.map((key) => `'${[...issue.path, key].map(String).join('.')}'`).join(', ')} in ${what}.`
      : `Invalid ${param ? `'${param}'` : what}: ${issue.message}.`;
  throw new JunctionError('invalid_request', message, { param });
}
