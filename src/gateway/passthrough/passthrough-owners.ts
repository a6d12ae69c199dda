import { storableJsonReplacer } from '../../core/storable-text.ts';
import type { Queryable } from '../../store/database.ts';

/**
 * Which account owns each object the pass-through created in the provider account all
 * tenants share (table passthrough_objects). Ownership is per account: every model key
 * of an account reaches the objects any of its keys created.
 */

export type PassthroughOwner = { accountId: string; keyId: string };

/** An object seen in an upstream answer: its provider id, kind (`object`) and body. */
export type SeenObject = { id: string; kind: string; snapshot: Record<string, unknown> };

/** Longer than any provider id: such a string is nobody's object, and is not looked up. */
const MAX_ID_LENGTH = 256;

/** Whether a string could be a stored id: text columns cannot hold NUL. */
const isStorableId = (id: string): boolean => id.length <= MAX_ID_LENGTH && !id.includes('\u0000');

/** The ids among `ids` that this account does not own (missing ones included). */
export async function unownedIds(db: Queryable, accountId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const lookup = unique.filter(isStorableId);
  if (lookup.length === 0) return unique;
  const { rows } = await db.query<{ upstream_id: string }>('SELECT upstream_id FROM passthrough_objects WHERE account_id = $1 AND upstream_id = ANY($2::text[])', [accountId, lookup]);
  const owned = new Set(rows.map((row) => row.upstream_id));
  return unique.filter((id) => !owned.has(id));
}

/**
 * Records objects for the caller's account. With `refresh`, the snapshot of one it
 * already owns becomes this one (an answer showing the object itself); without, a known
 * object stays as it was (an id another object only mentions). An id another account
 * owns keeps its owner and its snapshot either way.
 */
export async function recordObjects(db: Queryable, owner: PassthroughOwner, objects: readonly SeenObject[], refresh: boolean): Promise<void> {
  if (objects.length === 0) return;
  const onConflict = refresh
    ? `DO UPDATE SET snapshot = EXCLUDED.snapshot
       WHERE passthrough_objects.account_id = EXCLUDED.account_id AND passthrough_objects.kind = EXCLUDED.kind`
    : 'DO NOTHING';
  await db.query(
    `INSERT INTO passthrough_objects (upstream_id, account_id, created_by_key_id, kind, snapshot)
     SELECT object ->> 'id', $1, $2, object ->> 'kind', object -> 'snapshot' FROM jsonb_array_elements($3::jsonb) AS object
     ON CONFLICT (upstream_id) ${onConflict}`,
    [owner.accountId, owner.keyId, JSON.stringify(dedupe(objects.filter((object) => isStorableId(object.id))), storableJsonReplacer)],
  );
}

/** The last snapshot of each id wins: one statement may not touch a row twice. */
const dedupe = (objects: readonly SeenObject[]): SeenObject[] => [...new Map(objects.map((object) => [object.id, object])).values()];

/** Drops the account's row for an object the provider deleted. */
export async function forgetObject(db: Queryable, accountId: string, id: string): Promise<void> {
  await db.query('DELETE FROM passthrough_objects WHERE account_id = $1 AND upstream_id = $2', [accountId, id]);
}

export type ListPage = {
  limit: number;
  order: 'asc' | 'desc';
  after: string | undefined;
  before: string | undefined;
  /** Files only: the `purpose` filter. */
  purpose: string | undefined;
};

export type ListedPage = { snapshots: Record<string, unknown>[]; hasMore: boolean };

/** The position of a cursor object of this account and kind, or null when it has none. */
async function cursorPosition(db: Queryable, accountId: string, kind: string, id: string): Promise<number | null> {
  const { rows } = await db.query<{ position: number }>('SELECT position FROM passthrough_objects WHERE account_id = $1 AND kind = $2 AND upstream_id = $3', [accountId, kind, id]);
  return rows[0]?.position ?? null;
}

/**
 * One page of the account's objects of a kind in recording order, like the provider's
 * list endpoints: `after` continues past a cursor in the list's order, `before` gives the
 * page just ahead of one. Null when a cursor is not one of the account's objects.
 */
export async function listObjects(db: Queryable, accountId: string, kind: string, page: ListPage): Promise<ListedPage | null> {
  const cursorId = page.before ?? page.after;
  const cursor = cursorId === undefined ? null : await cursorPosition(db, accountId, kind, cursorId);
  if (cursorId !== undefined && cursor === null) return null;
  // Walking back from `before` reads the opposite way, then turns the page around.
  const descending = (page.order === 'desc') !== (page.before !== undefined);
  const comparison = descending ? '<' : '>';
  const { rows } = await db.query<{ snapshot: Record<string, unknown> }>(
    `SELECT snapshot FROM passthrough_objects
     WHERE account_id = $1 AND kind = $2
       AND ($3::bigint IS NULL OR position ${comparison} $3)
       AND ($4::text IS NULL OR snapshot ->> 'purpose' = $4)
     ORDER BY position ${descending ? 'DESC' : 'ASC'} LIMIT $5`,
    [accountId, kind, cursor, page.purpose ?? null, page.limit + 1],
  );
  const snapshots = rows.slice(0, page.limit).map((row) => row.snapshot);
  if (page.before !== undefined) snapshots.reverse();
  return { snapshots, hasMore: rows.length > page.limit };
}
