import { z } from 'zod';
import { JunctionError } from '../../core/errors.ts';
import type { Queryable } from '../../store/database.ts';
import { listObjects } from './passthrough-owners.ts';

/** The `object` of each family's items, which is also their kind in passthrough_objects. */
export const FAMILY_KINDS: Record<string, string> = {
  files: 'file',
  responses: 'response',
  assistants: 'assistant',
  threads: 'thread',
  vector_stores: 'vector_store',
  batches: 'batch',
};

/** The provider's own page bounds: files list up to 10,000 at once, the others 100. */
const LIMITS: Record<string, { fallback: number; max: number }> = { files: { fallback: 10_000, max: 10_000 } };
const DEFAULT_LIMITS = { fallback: 20, max: 100 };

/** A cursor or filter as the database can compare it: no NUL, no longer than an id. */
const QueryText = z
  .string()
  .min(1)
  .max(256)
  .refine((text) => !text.includes('\u0000'), 'must not contain NUL');

const ListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).optional(),
  order: z.enum(['asc', 'desc']).default('desc'),
  after: QueryText.optional(),
  before: QueryText.optional(),
  purpose: QueryText.optional(),
});

/**
 * `GET /v1/{family}`, answered from Junction's table of the caller's account's objects in
 * the provider's list shape: the provider's own list would show every tenant's objects.
 * Each item is the object as Junction last saw it (created, read or changed through the
 * pass-through); `GET /v1/{family}/{id}` gives its current state.
 */
export async function ownedList(db: Queryable, accountId: string, family: string, rawQuery: string | undefined): Promise<Record<string, unknown>> {
  const kind = FAMILY_KINDS[family];
  if (kind === undefined) throw new JunctionError('not_found', `No list at /${family}.`);
  const parsed = ListQuerySchema.safeParse(Object.fromEntries(new URLSearchParams(rawQuery ?? '')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = typeof issue?.path[0] === 'string' ? issue.path[0] : undefined;
    throw new JunctionError('invalid_request', `Invalid list query${param ? ` \`${param}\`` : ''}: ${issue?.message ?? 'malformed'}.`, param ? { param } : undefined);
  }
  const bounds = LIMITS[family] ?? DEFAULT_LIMITS;
  const limit = parsed.data.limit ?? bounds.fallback;
  if (limit > bounds.max) throw new JunctionError('invalid_request', `\`limit\` may be at most ${bounds.max} here.`, { param: 'limit' });
  const page = await listObjects(db, accountId, kind, {
    limit,
    order: parsed.data.order,
    after: parsed.data.after,
    before: parsed.data.before,
    purpose: family === 'files' ? parsed.data.purpose : undefined,
  });
  if (!page) {
    const param = parsed.data.before !== undefined ? 'before' : 'after';
    throw new JunctionError('not_found', `No such object: '${parsed.data.before ?? parsed.data.after ?? ''}'.`, { param });
  }
  const ids = page.snapshots.map((snapshot) => snapshot['id']);
  return { object: 'list', data: page.snapshots, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null, has_more: page.hasMore };
}
