import type { Database, Queryable } from '../store/database.ts';
import { DEFAULT_EF_SEARCH } from '../store/vector-session-settings.ts';
import { overlay } from '../core/overlay.ts';
import { toVectorBinary, toVectorLiteral } from './embedder.ts';

/**
 * All SQL of the knowledge subsystem. Every statement filters on account_id: the
 * knowledge folders are shared files, the indexed rows are not.
 */

/** Sizes with an HNSW index in migrations/0003_knowledge.sql (vector up to 2,000 dims). */
export const HNSW_VECTOR_DIMENSIONS: readonly number[] = [256, 384, 512, 768, 1024, 1536];
/** Larger sizes are indexed as halfvec, whose HNSW limit is 4,000 dims. */
export const HNSW_HALFVEC_DIMENSIONS: readonly number[] = [3072];

export type IndexedCollection = { name: string; embeddingModel: string | null; source: 'folder' | 'console' };
export type StoredDocument = { id: number; path: string; sourceHash: string; chunkCount: number };
export type StoredEmbedding = { embedding: string; dims: number };

export type ChunkInput = {
  chunkIndex: number;
  heading?: string;
  content: string;
  contentHash: string;
  /** pgvector text literal, or null when indexed without an embedder. */
  embedding: string | null;
  dims: number | null;
};

export type DocumentInput = {
  accountId: string;
  collection: string;
  path: string;
  title: string;
  sourceHash: string;
  embeddingModel: string | null;
  chunks: ChunkInput[];
};

export type ChunkMatch = {
  id: number;
  collection: string;
  path: string;
  title: string | null;
  heading: string | null;
  content: string;
  /** Cosine distance (vector search) or ts_rank (full-text search). */
  score: number;
};

export type SearchScope = { accountId: string; collections: readonly string[]; limit: number };

/**
 * A scope of at most this many chunks (the knowledge of most agents) is searched whole by
 * both retrievers: every full-text match ranked, every vector compared.
 */
export const SMALL_SCOPE_CHUNKS = 1000;

/** The scope's chunk count, from its documents' rows, as a CTE the search statements choose their branch on. */
export const SCOPE_SIZE_SQL = `scope_size AS (
       SELECT coalesce(sum(chunk_count), 0) AS chunks FROM knowledge_documents WHERE account_id = $2 AND collection = ANY($3::text[])
     )`;

export async function upsertCollection(db: Queryable, accountId: string, name: string, embeddingModel: string | null, source: 'folder' | 'console' = 'folder'): Promise<void> {
  await db.query(
    `INSERT INTO knowledge_collections (account_id, name, embedding_model, source) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id, name) DO UPDATE SET embedding_model = EXCLUDED.embedding_model, indexed_at = now()`,
    [accountId, name, embeddingModel, source],
  );
}

export async function listIndexedCollections(db: Queryable, accountId: string): Promise<IndexedCollection[]> {
  const result = await db.query<{ name: string; embedding_model: string | null; source: 'folder' | 'console' }>(
    'SELECT name, embedding_model, source FROM knowledge_collections WHERE account_id = $1 ORDER BY name',
    [accountId],
    // Every hybrid search asks first: parsed and planned once per connection.
    { prepareAs: 'knowledge-indexed-collections' },
  );
  return result.rows.map((row) => ({ name: row.name, embeddingModel: row.embedding_model, source: row.source }));
}

/** Removes a collection with its documents and chunks (ON DELETE CASCADE). */
export async function deleteCollection(db: Queryable, accountId: string, name: string): Promise<void> {
  await db.query('DELETE FROM knowledge_collections WHERE account_id = $1 AND name = $2', [accountId, name]);
}

export async function listDocuments(db: Queryable, accountId: string, collection: string): Promise<StoredDocument[]> {
  const result = await db.query<{ id: number; path: string; source_hash: string; chunk_count: number }>(
    `SELECT id, path, source_hash, chunk_count FROM knowledge_documents
     WHERE account_id = $1 AND collection = $2 ORDER BY path`,
    [accountId, collection],
  );
  return result.rows.map((row) => ({ id: row.id, path: row.path, sourceHash: row.source_hash, chunkCount: row.chunk_count }));
}

export async function deleteDocuments(db: Queryable, accountId: string, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query('DELETE FROM knowledge_documents WHERE account_id = $1 AND id = ANY($2::bigint[])', [accountId, ids]);
}

/** Embeddings already stored for these chunk hashes (the hash includes the model id). */
export async function findStoredEmbeddings(db: Queryable, accountId: string, hashes: readonly string[]): Promise<Map<string, StoredEmbedding>> {
  if (hashes.length === 0) return new Map();
  const result = await db.query<{ content_hash: string; embedding: string; dims: number }>(
    `SELECT DISTINCT ON (content_hash) content_hash, embedding::text AS embedding, dims FROM knowledge_chunks
     WHERE account_id = $1 AND content_hash = ANY($2::text[]) AND embedding IS NOT NULL`,
    [accountId, hashes],
  );
  return new Map(result.rows.map((row) => [row.content_hash, { embedding: row.embedding, dims: row.dims }]));
}

/** Rows per INSERT: keeps one statement's parameters to a few MB even at 3,072 dims. */
const INSERT_BATCH = 200;

/** Writes a document and replaces all of its chunks; run it in a transaction. */
export async function replaceDocument(tx: Queryable, input: DocumentInput): Promise<void> {
  const document = await tx.query<{ id: number }>(
    `INSERT INTO knowledge_documents (account_id, collection, path, title, source_hash, chunk_count)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id, collection, path) DO UPDATE SET title = EXCLUDED.title,
       source_hash = EXCLUDED.source_hash, chunk_count = EXCLUDED.chunk_count, indexed_at = now()
     RETURNING id`,
    [input.accountId, input.collection, input.path, input.title, input.sourceHash, input.chunks.length],
  );
  const documentId = document.rows[0]?.id;
  if (documentId === undefined) throw new Error('knowledge document upsert returned no row');
  await tx.query('DELETE FROM knowledge_chunks WHERE document_id = $1', [documentId]);
  for (let start = 0; start < input.chunks.length; start += INSERT_BATCH) {
    const batch = input.chunks.slice(start, start + INSERT_BATCH);
    await insertChunks(tx, { ...input, documentId }, batch);
  }
}

async function insertChunks(
  tx: Queryable,
  document: Pick<DocumentInput, 'accountId' | 'collection' | 'path' | 'title' | 'embeddingModel'> & { documentId: number },
  chunks: readonly ChunkInput[],
): Promise<void> {
  // unnest() of parallel arrays: one statement per batch with a fixed parameter count.
  await tx.query(
    `INSERT INTO knowledge_chunks (account_id, document_id, collection, path, title, chunk_index, heading,
       content, content_hash, embedding_model, dims, embedding)
     SELECT $1, $2, $3, $4, $5, c.chunk_index, c.heading, c.content, c.content_hash,
       CASE WHEN c.embedding IS NULL THEN NULL ELSE $6 END, c.dims, c.embedding::vector
     FROM unnest($7::int[], $8::text[], $9::text[], $10::text[], $11::int[], $12::text[])
       AS c (chunk_index, heading, content, content_hash, dims, embedding)`,
    [
      document.accountId,
      document.documentId,
      document.collection,
      document.path,
      document.title,
      document.embeddingModel,
      chunks.map((chunk) => chunk.chunkIndex),
      chunks.map((chunk) => chunk.heading ?? null),
      chunks.map((chunk) => chunk.content),
      chunks.map((chunk) => chunk.contentHash),
      chunks.map((chunk) => chunk.dims),
      chunks.map((chunk) => chunk.embedding),
    ],
  );
}

/** Counts for status output and tests. */
export async function countChunks(db: Queryable, accountId: string, collection?: string): Promise<{ chunks: number; embedded: number; documents: number }> {
  const result = await db.query<{ chunks: number; embedded: number; documents: number }>(
    `SELECT count(*)::int AS chunks, count(embedding)::int AS embedded, count(DISTINCT document_id)::int AS documents
     FROM knowledge_chunks WHERE account_id = $1 AND ($2::text IS NULL OR collection = $2)`,
    [accountId, collection ?? null],
  );
  return result.rows[0] ?? { chunks: 0, embedded: 0, documents: 0 };
}

export type MatchRow = Omit<ChunkMatch, 'score'> & { score: number | string };
export const toMatch = (row: MatchRow): ChunkMatch => overlay(row, { score: Number(row.score) });
const MATCH_COLUMNS = 'id, collection, path, title, heading, content';

/**
 * Nearest chunks by cosine distance. The distance expression repeats the index's cast
 * and the `dims = N` predicate so the partial HNSW index for that size is chosen
 * (checked with EXPLAIN on PostgreSQL 15 and PGlite). Iterative scan, on in every
 * session of both engines, keeps returning candidates when the account/collection
 * filter rejects the first ones the graph offers.
 *
 * A scope that is a small share of the index (an account's few chunks among many
 * accounts') would have the graph walk past thousands of others' chunks, so a scope of at
 * most SMALL_SCOPE_CHUNKS is compared whole, exactly. Its rows are reached through its
 * documents: each document's chunks by the (document_id, chunk_index) key, behind an
 * OFFSET 0 that keeps the planner from turning the lookup into a join it could feed from
 * a sequential scan of every account's chunks (and keeps the chunks' own account check
 * outside, where it cannot draw in the account's index). So even the generic plan of this
 * prepared statement (which guesses a scope's size from the table's average, not its rows)
 * reads only the scope's rows, where a plain filtered ORDER BY becomes a sequential scan of
 * every chunk. The branch is chosen inside the statement, on the scope's size from
 * its documents' rows, so each size and limit stays one prepared statement.
 */
export async function searchByVector(db: Database, scope: SearchScope & { embeddingModel: string; vector: readonly number[] }): Promise<ChunkMatch[]> {
  const dims = scope.vector.length;
  const vector = HNSW_HALFVEC_DIMENSIONS.includes(dims) ? toVectorLiteral(scope.vector) : toVectorBinary(scope.vector);
  // Prepared per size and limit, both written into the text (an integer each): planning this
  // statement was a sizeable part of a search on PGlite, and a LIMIT left as a parameter is
  // costed as a tenth of the table in a generic plan, which would never be chosen.
  const limit = candidateLimit(scope.limit);
  const search = async (queryable: Queryable) => {
    const result = await queryable.query<MatchRow>(vectorSearchSql(dims, limit), [vector, scope.accountId, scope.collections, scope.embeddingModel], {
      prepareAs: `knowledge-vector-${dims}-${limit}`,
    });
    return result.rows.map(toMatch).sort((a, b) => a.score - b.score || a.id - b.id);
  };
  // Iterative scan is on in every session (vector-session-settings.ts); only a search for
  // more rows than the default candidate list holds needs a larger one, set for its transaction.
  if (scope.limit <= DEFAULT_EF_SEARCH) return search(db);
  return db.transaction(async (tx) => {
    await tx.query(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(Math.min(1000, scope.limit))]);
    return search(tx);
  });
}

/** The nearest-chunks statement for vectors of `dims` (parameters: vector, account, collections, model); exported for the tests that read its plans. */
export function vectorSearchSql(dims: number, limit: number): string {
  const distance = distanceExpression(dims);
  return `WITH ${SCOPE_SIZE_SQL}
       (SELECT c.id, c.collection, c.path, c.title, c.heading, c.content, c.score FROM knowledge_documents d,
          LATERAL (SELECT ${MATCH_COLUMNS}, account_id, ${distance} AS score FROM knowledge_chunks
                   WHERE document_id = d.id AND dims = ${dims} AND embedding_model = $4 OFFSET 0) c
        WHERE (SELECT chunks FROM scope_size) <= ${SMALL_SCOPE_CHUNKS} AND d.account_id = $2 AND d.collection = ANY($3::text[]) AND c.account_id = $2
        ORDER BY c.score LIMIT ${candidateLimit(limit)})
       UNION ALL
       (SELECT ${MATCH_COLUMNS}, ${distance} AS score FROM knowledge_chunks
        WHERE (SELECT chunks FROM scope_size) > ${SMALL_SCOPE_CHUNKS} AND dims = ${dims} AND account_id = $2 AND collection = ANY($3::text[]) AND embedding_model = $4
        ORDER BY ${distance} LIMIT ${candidateLimit(limit)})`;
}

function candidateLimit(limit: number): number {
  // Interpolated into SQL like dims: integers only.
  if (!Number.isInteger(limit) || limit <= 0 || limit > 10_000) throw new Error(`invalid candidate limit: ${limit}`);
  return limit;
}

function distanceExpression(dims: number): string {
  // dims is interpolated into SQL (a type modifier cannot be a parameter): integers only.
  if (!Number.isInteger(dims) || dims <= 0 || dims > 16000) throw new Error(`invalid embedding dimensions: ${dims}`);
  if (HNSW_VECTOR_DIMENSIONS.includes(dims)) return `embedding::vector(${dims}) <=> $1::vector(${dims})`;
  if (HNSW_HALFVEC_DIMENSIONS.includes(dims)) return `embedding::halfvec(${dims}) <=> $1::halfvec(${dims})`;
  return 'embedding <=> $1::vector';
}

/** How many documents a collection holds, and whether one of them is at `path` (an upload there replaces it). */
export async function collectionOccupancy(db: Queryable, accountId: string, collection: string, path: string): Promise<{ documents: number; hasPath: boolean }> {
  const result = await db.query<{ documents: number; has_path: boolean }>(
    'SELECT count(*)::int AS documents, coalesce(bool_or(path = $3), false) AS has_path FROM knowledge_documents WHERE account_id = $1 AND collection = $2',
    [accountId, collection, path],
  );
  const row = result.rows[0];
  return { documents: Number(row?.documents ?? 0), hasPath: row?.has_path === true };
}
