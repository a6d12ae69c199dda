/**
 * Knowledge retrieval at 100k chunks: indexes the example knowledge (knowledge/) with the
 * lexical test embedder, bulk-loads synthetic chunks (Zipf-distributed pseudo-words,
 * random unit vectors of 256 dimensions) into the same collection as distractors, then
 * times hybrid search and its two halves over a few hundred pseudo-word questions, and
 * measures recall@10 on the labelled questions (test/fixtures/knowledge) before and
 * after the distractors went in. PGlite in a data folder of its own (as `npm start` keeps
 * the store), opened again once the chunks are in, as the server's next start would open
 * it: its buffer pool is the server's (JUNCTION_PGLITE_SHARED_BUFFERS, else chosen from
 * the store's vector indexes, src/store/pglite-store-memory.ts). A fresh PostgreSQL database
 * when DATABASE_URL is set.
 *
 *   node --import tsx bench/knowledge-search.ts        (KNOWLEDGE_BENCH_CHUNKS, KNOWLEDGE_BENCH_QUERIES)
 *
 * Random vectors are the worst case for HNSW (no clusters). The timed questions' query
 * embedding is precomputed, so "hybrid" excludes the embedding model call that a real
 * search makes.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { createAccount } from '../src/accounts/account-repository.ts';
import { parsePglitePageCache, parsePgliteSharedBuffers } from '../src/config/storage-env.ts';
import type { Embedder } from '../src/knowledge/embedder.ts';
import { searchKnowledge } from '../src/knowledge/hybrid-search.ts';
import { indexKnowledge } from '../src/knowledge/knowledge-indexer.ts';
import { searchByText } from '../src/knowledge/full-text-search.ts';
import { searchByVector, upsertCollection } from '../src/knowledge/knowledge-repository.ts';
import type { Database } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import { openDatabase } from '../src/store/open-database.ts';
import { EXAMPLE_KNOWLEDGE_DIR } from '../test/support/knowledge-fixtures.ts';
import { createLexicalEmbedder } from '../test/support/lexical-embedder.ts';

export const DIMS = 256;
export const lexicalEmbedder = createLexicalEmbedder({ dimensions: DIMS });
/** The synthetic chunks share the example knowledge's collection and embedding model: they compete with it. */
export const MODEL = lexicalEmbedder.modelId;
const COLLECTION = 'handbook';
export const COLLECTIONS = ['handbook', 'product-docs'];
const RECALL_AT = 10;
const WORDS_PER_CHUNK = 120;
const CHUNKS_PER_DOCUMENT = 1000;
const INSERT_BATCH = 1000;

/** Deterministic PRNG (mulberry32), so every run loads the same corpus. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'do', 'fi', 'gu', 'he', 'ji', 'ba'];

/** 5,000 pronounceable pseudo-words; Zipf sampling makes a few common and most rare, like prose. */
export function vocabulary(next: () => number): string[] {
  const words = new Set<string>();
  while (words.size < 5000) {
    const length = 2 + Math.floor(next() * 3);
    words.add(Array.from({ length }, () => SYLLABLES[Math.floor(next() * SYLLABLES.length)]).join(''));
  }
  return [...words];
}

export function zipfSampler(size: number, next: () => number): () => number {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= size; rank += 1) cumulative.push((total += 1 / rank));
  return () => {
    const target = next() * total;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] ?? 0) < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

export function unitVector(next: () => number): number[] {
  const vector = Array.from({ length: DIMS }, () => next() * 2 - 1);
  const norm = Math.hypot(...vector);
  return vector.map((value) => Number((value / norm).toFixed(6)));
}

export type BenchDatabase = { db: Database; reopen(db: Database): Promise<Database>; drop(): Promise<void> };

/** `existing`: a PostgreSQL database kept by an earlier run (BENCH_KEEP_DATABASE=1), opened as it is and never dropped. */
export async function openBenchDatabase(existing?: string): Promise<BenchDatabase> {
  const baseUrl = process.env.DATABASE_URL;
  if (existing) {
    if (!baseUrl || !/^[a-z0-9_]+$/.test(existing)) throw new Error(`reusing database ${existing} needs DATABASE_URL and a plain database name`);
    const url = new URL(baseUrl);
    url.pathname = `/${existing}`;
    const db = await openDatabase({ databaseUrl: url.toString(), dataDir: 'memory://' });
    return { db, reopen: async (opened) => opened, drop: async () => undefined };
  }
  if (!baseUrl) {
    const pgliteSharedBuffers = parsePgliteSharedBuffers(process.env.JUNCTION_PGLITE_SHARED_BUFFERS);
    const pglitePageCacheBytes = parsePglitePageCache(process.env.JUNCTION_PGLITE_PAGE_CACHE);
    // A data folder, as `npm start` keeps the store: pages the pool does not hold are read
    // from files (each read a system call), not copied from arrays in memory.
    const folder = mkdtempSync(join(tmpdir(), 'junction-knowledge-bench-'));
    const open = () => openDatabase({ dataDir: join(folder, 'data'), pgliteSharedBuffers, pglitePageCacheBytes });
    return {
      db: await open(),
      async reopen(db) {
        await db.close();
        return open();
      },
      drop: async () => rmSync(folder, { recursive: true, force: true }),
    };
  }
  const name = `junction_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: 'memory://' });
  return {
    db,
    // PostgreSQL's pool belongs to its server, which keeps it across connections.
    reopen: async (opened) => opened,
    async drop() {
      // BENCH_KEEP_DATABASE=1 leaves it for EXPLAIN ANALYZE of the searches, whose data takes long to load again.
      if (process.env.BENCH_KEEP_DATABASE === '1') return void process.stderr.write(`kept the bench database ${url.toString()}\n`);
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

const BULK_LOADED_INDEXES = [`knowledge_chunks_hnsw_${DIMS}`, 'knowledge_chunks_tsv'];

/**
 * Bulk-load practice: drop the HNSW and GIN indexes, insert, build them once. The
 * definitions are read back from the catalog so the bench builds exactly what the
 * migration declares.
 */
export async function dropIndexes(db: Database): Promise<string[]> {
  const definitions = await db.query<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE indexname = ANY($1::text[]) ORDER BY indexname', [BULK_LOADED_INDEXES]);
  if (definitions.rows.length !== BULK_LOADED_INDEXES.length) throw new Error(`migration lacks one of ${BULK_LOADED_INDEXES.join(', ')}`);
  for (const name of BULK_LOADED_INDEXES) await db.query(`DROP INDEX ${name}`);
  return definitions.rows.map((row) => row.indexdef);
}

/** Builds each index once (with `maintenanceWorkMem` for its transaction) and returns the seconds each took. */
export async function rebuildIndexes(db: Database, definitions: string[], maintenanceWorkMem = '512MB'): Promise<Array<{ definition: string; seconds: number }>> {
  const built: Array<{ definition: string; seconds: number }> = [];
  for (const definition of definitions) {
    const start = performance.now();
    await db.transaction(async (tx) => {
      // An HNSW graph builds quickly only while it fits in this memory (100k × 256 dims needs more than the 64 MB default).
      await tx.query(`SET LOCAL maintenance_work_mem = '${maintenanceWorkMem}'`);
      await tx.query(definition);
    });
    built.push({ definition, seconds: (performance.now() - start) / 1000 });
  }
  // Steady state, as after autovacuum: statistics and the visibility map are current.
  await db.query('VACUUM ANALYZE knowledge_chunks');
  return built;
}

/**
 * Inserts `chunks` synthetic chunks for the account, 1,000 a statement. The next batch is
 * generated while the last one is written: on PostgreSQL the two run on two cores.
 */
export async function load(db: Database, accountId: string, chunks: number, next: () => number, words: string[]): Promise<void> {
  const pick = zipfSampler(words.length, next);
  await upsertCollection(db, accountId, COLLECTION, MODEL);
  let writing: Promise<unknown> = Promise.resolve();
  for (let start = 0; start < chunks; start += INSERT_BATCH) {
    const size = Math.min(INSERT_BATCH, chunks - start);
    const documentIndex = Math.floor(start / CHUNKS_PER_DOCUMENT);
    const contents: string[] = [];
    const vectors: string[] = [];
    const indexes: number[] = [];
    for (let i = 0; i < size; i += 1) {
      contents.push(Array.from({ length: WORDS_PER_CHUNK }, () => words[pick()]).join(' '));
      vectors.push(`[${unitVector(next).join(',')}]`);
      indexes.push((start + i) % CHUNKS_PER_DOCUMENT);
    }
    await writing;
    writing = (async () => {
      const path = `synthetic/doc-${documentIndex}.md`;
      const document = await db.query<{ id: number }>(
        `INSERT INTO knowledge_documents (account_id, collection, path, title, source_hash, chunk_count)
         VALUES ($1, $2, $3, $3, 'bench', $4)
         ON CONFLICT (account_id, collection, path) DO UPDATE SET chunk_count = EXCLUDED.chunk_count RETURNING id`,
        [accountId, COLLECTION, path, CHUNKS_PER_DOCUMENT],
      );
      await db.query(
        `INSERT INTO knowledge_chunks (account_id, document_id, collection, path, title, chunk_index, content, content_hash, embedding_model, dims, embedding)
         SELECT $1, $2, $3, $4, $4, c.chunk_index, c.content, md5(c.content), $5, ${DIMS}, c.embedding::vector
         FROM unnest($6::int[], $7::text[], $8::text[]) AS c (chunk_index, content, embedding)`,
        [accountId, document.rows[0]?.id, COLLECTION, path, MODEL, indexes, contents, vectors],
      );
    })();
    if ((start / INSERT_BATCH) % 20 === 19) process.stderr.write(`  loaded ${start + size} chunks\n`);
  }
  await writing;
}

/**
 * Draws what load() would for `chunks` chunks without writing them: a run on a database
 * loaded before then asks the same questions as the run that loaded it.
 */
export function skipLoad(chunks: number, next: () => number, words: string[]): void {
  const pick = zipfSampler(words.length, next);
  for (let chunk = 0; chunk < chunks; chunk += 1) {
    for (let word = 0; word < WORDS_PER_CHUNK; word += 1) pick();
    unitVector(next);
  }
}

/** Latencies of a second pass over the questions (steady state), and the first pass's p50 / p95 (pages not yet in memory). */
export type Timing = { name: string; p50: number; p95: number; p99: number; mean: number; hits: number; firstPass: { p50: number; p95: number } };

/**
 * Runs every question twice and reports the second pass: a running server answers from
 * pages it has read before (PostgreSQL's from the OS page cache and its pool; the embedded
 * store's from its page cache, filled only by reads, where loading the bench's chunks put
 * nothing). The first pass's p50 / p95 are kept beside it.
 */
export async function time(name: string, queries: number, run: (index: number) => Promise<number>): Promise<Timing> {
  const pass = async () => {
    const samples: number[] = [];
    let hits = 0;
    for (let index = 0; index < queries; index += 1) {
      const start = performance.now();
      hits += await run(index);
      samples.push(performance.now() - start);
    }
    samples.sort((a, b) => a - b);
    const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0;
    return { p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: samples.reduce((sum, value) => sum + value, 0) / samples.length, hits: hits / queries };
  };
  const first = await pass();
  const second = await pass();
  return { name, ...second, firstPass: { p50: first.p50, p95: first.p95 } };
}

const labelledQuestions = (async () =>
  (JSON.parse(await readFile(new URL('../test/fixtures/knowledge/labelled-questions.json', import.meta.url), 'utf8')) as { questions: Array<{ question: string; source: string }> }).questions)();

/** Share of labelled questions whose answering document is among the top RECALL_AT hybrid hits. */
export async function recallAtTen(db: Database, accountId: string): Promise<number> {
  const questions = await labelledQuestions;
  let found = 0;
  for (const { question, source } of questions) {
    const { hits } = await searchKnowledge({ db, accountId, collections: COLLECTIONS, query: question, embedder: lexicalEmbedder, limit: RECALL_AT });
    if (hits.some((hit) => hit.source === source)) found += 1;
  }
  return found / questions.length;
}

export type KnowledgeBenchResult = {
  engine: string;
  /** The engine's shared_buffers: how much of the indexes stays in its own page cache. */
  sharedBuffers: string;
  chunks: number;
  queries: number;
  loadSeconds: number;
  indexSeconds: number;
  hnswUsed: boolean;
  timings: Timing[];
  recallAt10: { exampleOnly: number; withDistractors: number };
};

export async function runKnowledgeBench(options: { chunks?: number; queries?: number; log?: (line: string) => void } = {}): Promise<KnowledgeBenchResult> {
  const chunks = options.chunks ?? Number(process.env.KNOWLEDGE_BENCH_CHUNKS ?? 100_000);
  const queries = options.queries ?? Number(process.env.KNOWLEDGE_BENCH_QUERIES ?? 200);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const next = random(42);
  const words = vocabulary(next);
  const bench = await openBenchDatabase();
  let db = bench.db;
  try {
    await migrate(db);
    const account = await createAccount(db, 'bench');
    // A second account's rows make the account filter do real work, as in production.
    const other = await createAccount(db, 'bench-other');
    await indexKnowledge({ db, accountId: account.id, rootDir: EXAMPLE_KNOWLEDGE_DIR, embedder: lexicalEmbedder });
    const exampleOnly = await recallAtTen(db, account.id);
    log(`knowledge bench on ${db.engine}: loading ${chunks} chunks…`);
    const definitions = await dropIndexes(db);
    const insertStart = performance.now();
    await load(db, account.id, chunks, next, words);
    await load(db, other.id, Math.min(chunks, 1000), next, words);
    const insertMs = performance.now() - insertStart;
    const indexStart = performance.now();
    await rebuildIndexes(db, definitions);
    const indexMs = performance.now() - indexStart;
    db = await bench.reopen(db);
    const withDistractors = await recallAtTen(db, account.id);

    // Mid-frequency words (ranks 50–2,000) as questions: common enough to match, rare enough to select.
    const questions = Array.from({ length: queries }, () => Array.from({ length: 4 }, () => words[50 + Math.floor(next() * 1950)]).join(' '));
    const queryVectors = Array.from({ length: queries }, () => unitVector(next));
    let current = 0;
    const embedder: Embedder = { modelId: MODEL, dimensions: DIMS, embed: async () => [queryVectors[current] ?? []] };
    const scope = { accountId: account.id, collections: COLLECTIONS, limit: 30 };

    const plan = await db.query<Record<string, string>>(
      `EXPLAIN SELECT id FROM knowledge_chunks WHERE dims = ${DIMS} AND account_id = $2 AND collection = ANY($3::text[]) AND embedding_model = $4
       ORDER BY embedding::vector(${DIMS}) <=> $1::vector(${DIMS}) LIMIT 30`,
      [`[${queryVectors[0]?.join(',')}]`, account.id, COLLECTIONS, MODEL],
    );
    const hnswUsed = plan.rows.some((row) => Object.values(row).join('').includes(`knowledge_chunks_hnsw_${DIMS}`));
    const sharedBuffers = (await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0]?.shared_buffers ?? '?';

    const timings = [
      await time('vector only (HNSW top 30)', queries, async (index) => (await searchByVector(db, { ...scope, embeddingModel: MODEL, vector: queryVectors[index] ?? [] })).length),
      await time('full text only (top 30)', queries, async (index) => (await searchByText(db, { ...scope, question: questions[index] ?? '' })).length),
      await time('hybrid (both + RRF, top 5)', queries, async (index) => {
        current = index;
        return (await searchKnowledge({ db, accountId: account.id, collections: COLLECTIONS, query: questions[index] ?? '', embedder })).hits.length;
      }),
    ];
    return { engine: db.engine, sharedBuffers, chunks, queries, loadSeconds: insertMs / 1000, indexSeconds: indexMs / 1000, hnswUsed, timings, recallAt10: { exampleOnly, withDistractors } };
  } finally {
    await db.close();
    await bench.drop();
  }
}

export function printKnowledgeBench(result: KnowledgeBenchResult): void {
  console.log(
    `\nknowledge search, ${result.engine === 'pglite' ? 'pglite in a data folder' : result.engine} (shared_buffers ${result.sharedBuffers}), ${result.chunks} synthetic chunks × ${DIMS} dims beside the example knowledge, ${result.queries} queries`,
  );
  console.log(`load: insert ${result.loadSeconds.toFixed(1)} s, HNSW + GIN build ${result.indexSeconds.toFixed(1)} s; HNSW index used by the vector query plan: ${result.hnswUsed}`);
  console.log(
    `recall@${RECALL_AT} on the labelled questions (hybrid, lexical embedder): ${result.recallAt10.exampleOnly.toFixed(2)} on the example knowledge alone, ${result.recallAt10.withDistractors.toFixed(2)} among the synthetic chunks`,
  );
  console.log('| search (second pass) | p50 ms | p95 ms | p99 ms | mean ms | results | first pass p50 / p95 ms |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const timing of result.timings) {
    console.log(
      `| ${timing.name} | ${timing.p50.toFixed(2)} | ${timing.p95.toFixed(2)} | ${timing.p99.toFixed(2)} | ${timing.mean.toFixed(2)} | ${timing.hits.toFixed(1)} | ${timing.firstPass.p50.toFixed(2)} / ${timing.firstPass.p95.toFixed(2)} |`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runKnowledgeBench().then(
    (result) => (process.env.BENCH_JSON === '1' ? console.log(JSON.stringify(result)) : printKnowledgeBench(result)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
