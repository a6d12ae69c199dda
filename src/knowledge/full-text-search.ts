import type { Queryable } from '../store/database.ts';
import { type ChunkMatch, type MatchRow, type SearchScope, SCOPE_SIZE_SQL, SMALL_SCOPE_CHUNKS, toMatch } from './knowledge-repository.ts';
import { type LexemeFrequencies, lexemeFrequencies } from './lexeme-frequencies.ts';

/** Question words full-text search considers (the first ones): tiers combine them in pairs and triples. */
const MAX_QUERY_LEXEMES = 10;
/** Matches a tier ranks at most, besides the rows of the tier before it. */
const TIER_SAMPLE = 100;
/** Word combinations a tier tries at most, rarest first (of up to 120 triples and 45 pairs). */
const MAX_COMBINATIONS = 10;

/** The tiers, strictest first: how many of the question's words a chunk must hold. */
const TIERS = ['every_word', 'three_words', 'two_words', 'any_word'] as const;

const LEXEMES_SQL = `lexemes AS (
       SELECT lexeme, positions[1] AS position, '''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''' AS quoted
       FROM unnest(to_tsvector('english', $1)) ORDER BY positions[1] LIMIT ${MAX_QUERY_LEXEMES}
     )`;

/**
 * A scope of at most SMALL_SCOPE_CHUNKS: every match ranked, plain OR ranking, in a
 * statement small enough to plan and start quickly. Its chunks are read through its
 * documents, as in searchByVector: a generic plan of this prepared statement cannot
 * then look the question's words up in the GIN index over every account's chunks, or
 * scan them all, for a scope of a few hundred. For a larger scope it returns one
 * row with the question's lexemes instead (in question order, raw and quoted into
 * tsquery syntax), and the tiers run.
 */
const SMALL_SCOPE_SQL = `WITH ${LEXEMES_SQL}, ${SCOPE_SIZE_SQL}, query AS (SELECT (SELECT string_agg(quoted, ' | ')::tsquery FROM lexemes) AS any_word)
     (SELECT c.id, c.collection, c.path, c.title, c.heading, c.content, ts_rank(c.tsv, q.any_word) AS score, NULL::text[] AS lexemes, NULL::text[] AS quoted, false AS large
      FROM knowledge_documents d, query q,
        LATERAL (SELECT id, account_id, collection, path, title, heading, content, tsv FROM knowledge_chunks WHERE document_id = d.id OFFSET 0) c
      WHERE (SELECT chunks FROM scope_size) <= ${SMALL_SCOPE_CHUNKS} AND d.account_id = $2 AND d.collection = ANY($3::text[]) AND c.account_id = $2 AND c.tsv @@ q.any_word
      ORDER BY score DESC, c.id LIMIT $4)
     UNION ALL
     SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL,
            (SELECT array_agg(lexeme ORDER BY position) FROM lexemes), (SELECT array_agg(quoted ORDER BY position) FROM lexemes), true
     FROM scope_size WHERE chunks > ${SMALL_SCOPE_CHUNKS}`;

/**
 * One tier: the tier before's rows (if any) plus at most TIER_SAMPLE chunks holding one
 * of this tier's word combinations ($5 + index, a text[] of tsqueries, rarest first),
 * ranked, best `limit` kept. The combinations are tried in turn, each a GIN lookup, and
 * the sample stops filling once it is full, so the rare combinations (the ones that say
 * what a chunk is about) are the ones sampled. Behind a one-time filter, a tier runs only
 * when every tier before it found fewer than `limit`, which PostgreSQL checks first.
 */
function tierSql(index: number): string {
  const name = TIERS[index];
  const earlier = TIERS.slice(0, index).map((tier) => `(SELECT count(*) FROM ${tier}) < $4`);
  const sample = `SELECT m.id, m.tsv FROM unnest($${5 + index}::text[]) AS combination (query),
           LATERAL (SELECT c.id, c.tsv FROM knowledge_chunks c
                    WHERE c.account_id = $2 AND c.collection = ANY($3::text[]) AND c.tsv @@ combination.query::tsquery LIMIT ${TIER_SAMPLE}) m
           ${earlier.length === 0 ? '' : `WHERE ${earlier.join(' AND ')}`}
           LIMIT ${TIER_SAMPLE}`;
  const previous = index === 0 ? '' : `SELECT id, score FROM ${TIERS[index - 1]} UNION ALL `;
  return `${name} AS MATERIALIZED (
       SELECT id, max(score) AS score FROM (
         ${previous}SELECT s.id, ts_rank(s.tsv, $1::tsquery) AS score FROM (${sample}) s
       ) scored GROUP BY id ORDER BY score DESC, id LIMIT $4
     )`;
}

/** Each tier holds the one before it, so the last tier that ran is the answer. */
function widestTierSql(): string {
  const names = [...TIERS].reverse();
  return names
    .map(
      (name, index) =>
        `SELECT * FROM ${name}${
          index === 0
            ? ''
            : ` WHERE ${names
                .slice(0, index)
                .map((wider) => `NOT EXISTS (SELECT 1 FROM ${wider})`)
                .join(' AND ')}`
        }`,
    )
    .join('\n       UNION ALL ');
}

const TIERED_SQL = `WITH ${TIERS.map((_, index) => tierSql(index)).join(', ')}, widest_tier AS (
       ${widestTierSql()}
     )
     SELECT c.id, c.collection, c.path, c.title, c.heading, c.content, t.score
     FROM widest_tier t JOIN knowledge_chunks c ON c.id = t.id
     ORDER BY t.score DESC, t.id`;

/**
 * Full-text matches for a question, best first, in "minimum should match" tiers (as in
 * Lucene and Elasticsearch): chunks with every word of the question; when fewer than
 * `limit` have them, chunks with at least three; then two; then any. Ranking every
 * chunk that shares one common word with the question is what made search slow at
 * scale; instead each tier ranks a sample of at most TIER_SAMPLE of its matches (plus
 * the better ones of the tier before), filled from its rarest word combinations first
 * (see lexeme-frequencies.ts), so the sample holds the chunks most likely to be about
 * the question. A scope of at most SMALL_SCOPE_CHUNKS has every match ranked instead.
 *
 * The question's words become lexemes through the 'english' config (stemmed, stop words
 * and operator words dropped), the config of the generated `tsv` column, and are quoted
 * into tsquery syntax by SQL, so no input can make it a syntax error. Every tier ranks
 * with ts_rank over the any-word query: ts_rank adds a share per query word with
 * diminishing returns for repeats, so a chunk with more of the question's words wins
 * over one repeating a common word. Title and heading (weight A) count more than body
 * text (B).
 */
export async function searchByText(db: Queryable, scope: SearchScope & { question: string }): Promise<ChunkMatch[]> {
  const small = await db.query<MatchRow & { lexemes: string[] | null; quoted: string[] | null; large: boolean }>(SMALL_SCOPE_SQL, [scope.question, scope.accountId, scope.collections, scope.limit], {
    prepareAs: 'knowledge-text-small-scope',
  });
  const large = small.rows.find((row) => row.large);
  if (!large) return small.rows.map(({ lexemes: _lexemes, quoted: _quoted, large: _large, ...row }) => toMatch(row));
  if (!large.lexemes?.length || !large.quoted?.length) return [];
  const tiers = tierCombinations(large.lexemes, large.quoted, await lexemeFrequencies(db));
  const result = await db.query<MatchRow>(TIERED_SQL, [large.quoted.join(' | '), scope.accountId, scope.collections, scope.limit, ...tiers], {
    prepareAs: 'knowledge-text-tiers',
  });
  return result.rows.map(toMatch);
}

/**
 * Each tier's word combinations as tsquery texts, rarest first (by the product of the
 * words' chunk shares; equal ones keep question order): all the words; triples; pairs;
 * single words. At most MAX_COMBINATIONS per tier, the rarest.
 */
export function tierCombinations(lexemes: readonly string[], quoted: readonly string[], frequencies: LexemeFrequencies): string[][] {
  const words = quoted.map((text, position) => ({ text, share: frequencies.get(lexemes[position] ?? '') ?? 0 }));
  const combinations = (size: number) =>
    subsets(words, size)
      .map((subset, order) => ({ query: subset.map((word) => word.text).join(' & '), share: subset.reduce((product, word) => product * word.share, 1), order }))
      .sort((a, b) => a.share - b.share || a.order - b.order)
      .slice(0, MAX_COMBINATIONS)
      .map((combination) => combination.query);
  return [[words.map((word) => word.text).join(' & ')], combinations(3), combinations(2), combinations(1)];
}

/** Every subset of `size` items, in lexicographic order of positions. */
function subsets<T>(items: readonly T[], size: number): T[][] {
  if (size === 0) return [[]];
  const result: T[][] = [];
  items.forEach((item, index) => {
    for (const rest of subsets(items.slice(index + 1), size - 1)) result.push([item, ...rest]);
  });
  return result;
}
