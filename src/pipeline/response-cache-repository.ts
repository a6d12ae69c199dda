import type { Queryable } from '../store/database.ts';

/** The rows of response_cache (migration 0029). */
export type StoredEntry = { model: string; entry: string; expiresAt: Date };

/** The account's live entry for a request hash, or undefined. */
export async function findCachedEntry(db: Queryable, accountId: string, requestHash: string, now: Date): Promise<StoredEntry | undefined> {
  const result = await db.query<{ model: string; entry: string; expires_at: Date }>(
    'SELECT model, entry, expires_at FROM response_cache WHERE account_id = $1 AND request_hash = $2 AND expires_at > $3',
    [accountId, requestHash, now],
  );
  const row = result.rows[0];
  return row && { model: row.model, entry: row.entry, expiresAt: new Date(row.expires_at) };
}

/** Keeps an entry, replacing the account's older one for the same request. */
export async function saveCachedEntry(db: Queryable, accountId: string, requestHash: string, stored: StoredEntry, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO response_cache (account_id, request_hash, model, entry, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id, request_hash) DO UPDATE SET model = EXCLUDED.model, entry = EXCLUDED.entry, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
    [accountId, requestHash, stored.model, stored.entry, now, stored.expiresAt],
  );
}

/** Deletes at most `limit` entries expired by `now`, oldest first; returns how many went. */
export async function deleteExpiredEntries(db: Queryable, now: Date, limit: number): Promise<number> {
  const result = await db.query<{ count: number }>(
    `WITH gone AS (
       DELETE FROM response_cache WHERE (account_id, request_hash) IN (
         SELECT account_id, request_hash FROM response_cache WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2
       ) RETURNING 1
     ) SELECT count(*)::int AS count FROM gone`,
    [now, limit],
  );
  return Number(result.rows[0]?.count ?? 0);
}
