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

/** What an entry stored for semantic matching adds: its shape, and the embedding of its text by `model` (migration 0033). */
export type SemanticColumns = { shapeHash: string; model: string; vector: readonly number[] };

/**
 * Keeps an entry, replacing the account's older one for the same request. An entry stored
 * without semantic columns keeps those of the one it replaces: the same request has the
 * same shape and text, so they still describe it.
 */
export async function saveCachedEntry(db: Queryable, accountId: string, requestHash: string, stored: StoredEntry, now: Date, semantic?: SemanticColumns): Promise<void> {
  await db.query(
    `INSERT INTO response_cache (account_id, request_hash, model, entry, created_at, expires_at, shape_hash, embedding_model, embedding)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::vector)
     ON CONFLICT (account_id, request_hash) DO UPDATE SET model = EXCLUDED.model, entry = EXCLUDED.entry, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
       shape_hash = coalesce(EXCLUDED.shape_hash, response_cache.shape_hash), embedding_model = coalesce(EXCLUDED.embedding_model, response_cache.embedding_model),
       embedding = coalesce(EXCLUDED.embedding, response_cache.embedding)`,
    [accountId, requestHash, stored.model, stored.entry, now, stored.expiresAt, semantic?.shapeHash ?? null, semantic?.model ?? null, semantic ? vectorLiteral(semantic.vector) : null],
  );
}

/** The most recent live entries of one shape a semantic lookup compares: a bound on its scan whatever an account stores. */
const SEMANTIC_CANDIDATES = 1_000;

/**
 * The account's live entry of the shape whose embedding (by the same model) is nearest to
 * `vector` by cosine distance, with its similarity (1 - distance), or undefined. An exact
 * scan of the shape's most recent entries: the column has no dimension, so no ANN index.
 */
export async function findNearestEntry(db: Queryable, accountId: string, semantic: SemanticColumns, now: Date): Promise<(StoredEntry & { similarity: number }) | undefined> {
  const result = await db.query<{ model: string; entry: string; expires_at: Date; distance: number | string }>(
    `WITH recent AS (
       SELECT model, entry, expires_at, embedding FROM response_cache
       WHERE account_id = $1 AND shape_hash = $2 AND embedding_model = $3 AND embedding IS NOT NULL AND expires_at > $4 AND vector_dims(embedding) = $6
       ORDER BY created_at DESC LIMIT ${SEMANTIC_CANDIDATES}
     )
     SELECT model, entry, expires_at, embedding <=> $5::vector AS distance FROM recent ORDER BY distance LIMIT 1`,
    [accountId, semantic.shapeHash, semantic.model, now, vectorLiteral(semantic.vector), semantic.vector.length],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  const distance = Number(row.distance);
  // A zero vector has no direction: its distance is NaN, never a match.
  if (!Number.isFinite(distance)) return undefined;
  return { model: row.model, entry: row.entry, expiresAt: new Date(row.expires_at), similarity: 1 - distance };
}

/** pgvector's text form of a vector; a non-finite value is refused rather than stored. */
function vectorLiteral(vector: readonly number[]): string {
  for (const value of vector) if (!Number.isFinite(value)) throw new Error('an embedding holds a non-finite value');
  return `[${vector.join(',')}]`;
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
