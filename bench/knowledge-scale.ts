/**
 * Knowledge at scale, the knowledge half of the `scale` part of `npm run bench`:
 *
 * 1. indexing throughput through the real path, a knowledge folder of
 *    BENCH_SCALE_INGEST_CHUNKS chunks (30,000) embedded by a fake upstream (bench/knowledge-ingest.ts);
 * 2. the bulk path that builds the large store: BENCH_SCALE_CHUNKS synthetic chunks
 *    (1,000,000 on PostgreSQL; BENCH_SCALE_CHUNKS_PGLITE, 100,000, on PGlite) generated
 *    and inserted directly with the HNSW and GIN indexes dropped, then each index built once;
 * 3. search p50/p95 in three scopes: the account holding most chunks beside the example
 *    knowledge (recall@10 on the labelled questions measured there); a tenant holding 5%,
 *    for whom the account and collection filter rejects most of what the indexes offer
 *    first; and a small account of 1,000 chunks, whose filter rejects nearly everything.
 *
 * The corpus, the questions and the timing are bench/knowledge-search.ts's (the 100k part).
 *
 * Loading 1M chunks and building their indexes takes the better part of an hour. On PostgreSQL,
 * BENCH_KEEP_DATABASE=1 keeps the database a run loaded (its name is printed), and
 * BENCH_SCALE_DATABASE=<that name> times the searches on it again: no ingest, no load, no
 * index build, the same questions (the generator is advanced past the chunks it loaded),
 * recall measured among the synthetic chunks only.
 *
 *   node --import tsx bench/knowledge-scale.ts
 */
import { pathToFileURL } from 'node:url';
import { createAccount } from '../src/accounts/account-repository.ts';
import type { Embedder } from '../src/knowledge/embedder.ts';
import { searchByText } from '../src/knowledge/full-text-search.ts';
import { searchKnowledge } from '../src/knowledge/hybrid-search.ts';
import { indexKnowledge } from '../src/knowledge/knowledge-indexer.ts';
import { searchByVector } from '../src/knowledge/knowledge-repository.ts';
import type { Database } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import { EXAMPLE_KNOWLEDGE_DIR } from '../test/support/knowledge-fixtures.ts';
import { stopAll } from './child-process.ts';
import { type IngestResult, measureIngest } from './knowledge-ingest.ts';
import {
  COLLECTIONS,
  DIMS,
  dropIndexes,
  lexicalEmbedder,
  load,
  MODEL,
  openBenchDatabase,
  random,
  rebuildIndexes,
  recallAtTen,
  skipLoad,
  type Timing,
  time,
  unitVector,
  vocabulary,
} from './knowledge-search.ts';

/** The tenant's share of the chunks: a scope the filter narrows to one row in twenty. */
/** The small account's chunks: the knowledge of most agents, full-text search's small scope (full-text-search.ts). */
const SMALL_SCOPE_CHUNKS = 1000;
const TENANT_SHARE = 0.05;

/** hnswUsed: whether the planner walks the HNSW index for a plain nearest-neighbour query of the scope (searchByVector decides on its own). */
export type ScopeTimings = { scope: string; chunks: number; hnswUsed: boolean; timings: Timing[] };

export type KnowledgeScaleResult = {
  engine: string;
  sharedBuffers: string;
  chunks: number;
  queries: number;
  /** Absent on a database loaded by an earlier run (BENCH_SCALE_DATABASE), as are the build and recall on the example knowledge alone. */
  ingest?: IngestResult;
  build?: { insertSeconds: number; insertChunksPerSecond: number; hnswSeconds: number; ginSeconds: number; maintenanceWorkMem: string };
  scopes: ScopeTimings[];
  recallAt10: { exampleOnly?: number; withDistractors: number };
};

export async function runKnowledgeScale(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<KnowledgeScaleResult> {
  const postgres = Boolean(process.env.DATABASE_URL);
  const chunks = Number((postgres ? process.env.BENCH_SCALE_CHUNKS : process.env.BENCH_SCALE_CHUNKS_PGLITE) ?? (postgres ? 1_000_000 : 100_000));
  const ingestChunks = Number(process.env.BENCH_SCALE_INGEST_CHUNKS ?? 30_000);
  const queries = Number(process.env.KNOWLEDGE_BENCH_QUERIES ?? 200);
  // The HNSW graph of 1M × 256 dims takes about 1.5 GB; built in memory it takes minutes, spilled it takes hours.
  const maintenanceWorkMem = postgres ? '4GB' : '1GB';

  const reused = postgres ? process.env.BENCH_SCALE_DATABASE : undefined;
  const ingest = reused ? undefined : await measureIngest({ chunks: ingestChunks, log });

  const next = random(42);
  const words = vocabulary(next);
  const bench = await openBenchDatabase(reused);
  let db = bench.db;
  try {
    const tenantChunks = Math.round(chunks * TENANT_SHARE);
    const accountChunks = chunks - tenantChunks - SMALL_SCOPE_CHUNKS;
    let loaded: Pick<KnowledgeScaleResult, 'build'> & { accounts: string[]; exampleOnly?: number };
    if (reused) {
      log(`knowledge scale on ${db.engine}: searching the ${chunks} chunks loaded before in ${reused}…`);
      loaded = { accounts: await accountIds(db, ['bench', 'bench-tenant', 'bench-small']) };
      for (const size of [accountChunks, tenantChunks, SMALL_SCOPE_CHUNKS]) skipLoad(size, next, words);
    } else {
      await migrate(db);
      const account = await createAccount(db, 'bench');
      const tenant = await createAccount(db, 'bench-tenant');
      const small = await createAccount(db, 'bench-small');
      await indexKnowledge({ db, accountId: account.id, rootDir: EXAMPLE_KNOWLEDGE_DIR, embedder: lexicalEmbedder });
      const exampleOnly = await recallAtTen(db, account.id);
      log(`knowledge scale on ${db.engine}: loading ${chunks} chunks (${tenantChunks} of them the tenant's, ${SMALL_SCOPE_CHUNKS} the small account's)…`);
      const definitions = await dropIndexes(db);
      const insertStart = performance.now();
      await load(db, account.id, accountChunks, next, words);
      await load(db, tenant.id, tenantChunks, next, words);
      await load(db, small.id, SMALL_SCOPE_CHUNKS, next, words);
      const insertSeconds = (performance.now() - insertStart) / 1000;
      log(`  inserted in ${insertSeconds.toFixed(0)} s; building the indexes…`);
      const built = await rebuildIndexes(db, definitions, maintenanceWorkMem);
      const secondsOf = (kind: string) => built.find((index) => index.definition.includes(`USING ${kind}`))?.seconds ?? 0;
      db = await bench.reopen(db);
      const build = { insertSeconds, insertChunksPerSecond: chunks / insertSeconds, hnswSeconds: secondsOf('hnsw'), ginSeconds: secondsOf('gin'), maintenanceWorkMem };
      loaded = { accounts: [account.id, tenant.id, small.id], exampleOnly, build };
    }
    const [mainId = '', tenantId = '', smallId = ''] = loaded.accounts;
    const withDistractors = await recallAtTen(db, mainId);

    // Mid-frequency words (ranks 50–2,000) as questions, as in the 100k part.
    const questions = Array.from({ length: queries }, () => Array.from({ length: 4 }, () => words[50 + Math.floor(next() * 1950)]).join(' '));
    const queryVectors = Array.from({ length: queries }, () => unitVector(next));
    const scopes: ScopeTimings[] = [];
    for (const [scope, accountId, scopeChunks] of [
      ['account', mainId, accountChunks],
      ['tenant', tenantId, tenantChunks],
      ['small account', smallId, SMALL_SCOPE_CHUNKS],
    ] as const) {
      log(`  timing the ${scope}'s searches…`);
      scopes.push({ scope, chunks: scopeChunks, hnswUsed: await hnswUsed(db, accountId, queryVectors[0] ?? []), timings: await timeScope(db, accountId, questions, queryVectors) });
    }
    const sharedBuffers = (await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0]?.shared_buffers ?? '?';
    return {
      engine: db.engine,
      sharedBuffers,
      chunks,
      queries,
      ingest,
      ...(loaded.build ? { build: loaded.build } : {}),
      scopes,
      recallAt10: { ...(loaded.exampleOnly === undefined ? {} : { exampleOnly: loaded.exampleOnly }), withDistractors },
    };
  } finally {
    await db.close();
    await bench.drop();
  }
}

/** The bench accounts of a database loaded before, by name, in the order asked. */
async function accountIds(db: Database, names: readonly string[]): Promise<string[]> {
  const result = await db.query<{ id: string; name: string }>('SELECT id, name FROM accounts WHERE name = ANY($1::text[])', [names]);
  return names.map((name) => {
    const row = result.rows.find((account) => account.name === name);
    if (!row) throw new Error(`no account ${name} in the reused database`);
    return row.id;
  });
}

async function hnswUsed(db: Database, accountId: string, vector: number[]): Promise<boolean> {
  const plan = await db.query<Record<string, string>>(
    `EXPLAIN SELECT id FROM knowledge_chunks WHERE dims = ${DIMS} AND account_id = $2 AND collection = ANY($3::text[]) AND embedding_model = $4
     ORDER BY embedding::vector(${DIMS}) <=> $1::vector(${DIMS}) LIMIT 30`,
    [`[${vector.join(',')}]`, accountId, COLLECTIONS, MODEL],
  );
  return plan.rows.some((row) => Object.values(row).join('').includes(`knowledge_chunks_hnsw_${DIMS}`));
}

export async function timeScope(db: Database, accountId: string, questions: string[], queryVectors: number[][]): Promise<Timing[]> {
  let current = 0;
  const embedder: Embedder = { modelId: MODEL, dimensions: DIMS, embed: async () => [queryVectors[current] ?? []] };
  const scope = { accountId, collections: COLLECTIONS, limit: 30 };
  const queries = questions.length;
  return [
    await time('vector only (top 30)', queries, async (index) => (await searchByVector(db, { ...scope, embeddingModel: MODEL, vector: queryVectors[index] ?? [] })).length),
    await time('full text only (top 30)', queries, async (index) => (await searchByText(db, { ...scope, question: questions[index] ?? '' })).length),
    await time('hybrid (both + RRF, top 5)', queries, async (index) => {
      current = index;
      return (await searchKnowledge({ db, accountId, collections: COLLECTIONS, query: questions[index] ?? '', embedder })).hits.length;
    }),
  ];
}

export function printKnowledgeScale(result: KnowledgeScaleResult): void {
  const { ingest, build } = result;
  console.log(`\nknowledge at scale, ${result.engine === 'pglite' ? 'pglite in a data folder' : result.engine} (shared_buffers ${result.sharedBuffers})`);
  if (ingest) {
    console.log(
      `indexing through the knowledge sync (fake embeddings upstream, ${ingest.embeddingCalls} calls): ${ingest.chunks} chunks in ${ingest.documents} documents, ${ingest.seconds.toFixed(1)} s, ${ingest.chunksPerSecond.toFixed(0)} chunks/s`,
    );
  }
  if (build) {
    console.log(
      `bulk build of ${result.chunks} chunks × ${DIMS} dims: insert ${build.insertSeconds.toFixed(0)} s (${build.insertChunksPerSecond.toFixed(0)} chunks/s), HNSW ${build.hnswSeconds.toFixed(0)} s, GIN ${build.ginSeconds.toFixed(0)} s (maintenance_work_mem ${build.maintenanceWorkMem})`,
    );
  }
  const exampleOnly = result.recallAt10.exampleOnly;
  console.log(
    `recall@10 on the labelled questions: ${exampleOnly === undefined ? '' : `${exampleOnly.toFixed(2)} on the example knowledge alone, `}${result.recallAt10.withDistractors.toFixed(2)} among the synthetic chunks`,
  );
  console.log(`| scope | search (second pass, ${result.queries} queries) | p50 ms | p95 ms | p99 ms | results | first pass p50 / p95 ms |`);
  console.log('|---|---|---:|---:|---:|---:|---:|');
  for (const scope of result.scopes) {
    for (const timing of scope.timings) {
      console.log(
        `| ${scope.scope} (${scope.chunks} chunks${scope.hnswUsed ? '' : ', HNSW not planned'}) | ${timing.name} | ${timing.p50.toFixed(2)} | ${timing.p95.toFixed(2)} | ${timing.p99.toFixed(2)} | ${timing.hits.toFixed(1)} | ${timing.firstPass.p50.toFixed(2)} / ${timing.firstPass.p95.toFixed(2)} |`,
      );
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runKnowledgeScale()
    .then(
      (result) => (process.env.BENCH_JSON === '1' ? console.log(JSON.stringify(result)) : printKnowledgeScale(result)),
      (error: unknown) => {
        console.error(error);
        process.exitCode = 1;
      },
    )
    .finally(stopAll);
}
