import type { Queryable } from '../store/database.ts';

/**
 * How common each lexeme is among all knowledge chunks: the share of chunks holding it,
 * read from the statistics ANALYZE keeps on the `tsv` column (pg_stats.most_common_elems,
 * about the 1,000 most common lexemes). Full-text search tries the rarest words of a
 * question first, as a common word says little about what a chunk is about. A lexeme
 * missing from the list is rarer than every listed one and counts as 0; with no
 * statistics yet (a table never analyzed) every lexeme counts as 0 and the question's
 * own word order decides.
 */
export type LexemeFrequencies = ReadonlyMap<string, number>;

/** Statistics change only when ANALYZE runs (autovacuum, or after a large index run): re-read them this often. */
const REFRESH_MS = 5 * 60_000;

const cached = new WeakMap<Queryable, { frequencies: Promise<LexemeFrequencies>; readAt: number }>();

/** The frequencies, read once and then re-read in the background when stale (no search waits for a refresh). */
export function lexemeFrequencies(db: Queryable, now = Date.now()): Promise<LexemeFrequencies> {
  const entry = cached.get(db);
  if (entry && now - entry.readAt < REFRESH_MS) return entry.frequencies;
  const frequencies = readFrequencies(db);
  const fresh = { frequencies, readAt: now };
  // A failed read is not kept: the next search asks again.
  frequencies.catch(() => {
    if (cached.get(db) === fresh) cached.delete(db);
  });
  if (!entry) {
    cached.set(db, fresh);
    return frequencies;
  }
  entry.readAt = now;
  frequencies.then(
    () => cached.set(db, fresh),
    () => undefined,
  );
  return entry.frequencies;
}

async function readFrequencies(db: Queryable): Promise<LexemeFrequencies> {
  const result = await db.query<{ lexemes: string[] | null; frequencies: number[] | null }>(
    `SELECT most_common_elems::text::text[] AS lexemes, most_common_elem_freqs AS frequencies
     FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'knowledge_chunks' AND attname = 'tsv'`,
  );
  const row = result.rows[0];
  const frequencies = new Map<string, number>();
  // most_common_elem_freqs has three more entries than the lexemes (min, max, null share): zip by lexeme.
  row?.lexemes?.forEach((lexeme, index) => frequencies.set(lexeme, Number(row.frequencies?.[index] ?? 0)));
  return frequencies;
}

/**
 * Chunks an index run writes before it runs ANALYZE itself: PGlite has no autovacuum, and
 * on PostgreSQL search should not wait for autovacuum to learn a large new collection's words.
 */
export const STATISTICS_REFRESH_CHUNKS = 1000;

export async function refreshLexemeStatistics(db: Queryable): Promise<void> {
  await db.query('ANALYZE knowledge_chunks');
  cached.delete(db);
}
