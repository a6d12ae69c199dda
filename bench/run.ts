/**
 * `npm run bench`: every figure of the performance targets, in one run on this machine.
 *
 * - throughput: Junction's gateway against a bare fastify + undici proxy (bench/throughput.ts);
 * - footprint: `npm start` to ready, idle RSS, RSS added by 1,000 open streams (bench/server-footprint.ts);
 * - agent: agent turn overhead over the same model call, both endpoints (bench/agent-turn.ts);
 * - knowledge: hybrid search p50/p95 at 100k chunks and recall@10 (bench/knowledge-search.ts);
 * - soak (only with BENCH_SOAK_REQUESTS): RSS and latency after 100k requests and at the end (bench/soak.ts);
 * - scale (only with BENCH_ONLY=scale): console Overview, Usage filters, a 30-day export and gateway calls under Overview load at N usage rows (bench/scale.ts);
 *   and knowledge indexing throughput, the bulk build and search p50/p95 at N chunks (bench/knowledge-scale.ts; alone with BENCH_ONLY=knowledge-scale);
 *   and the lists of runs and conversations at N of each (bench/runs-scale.ts; alone with BENCH_ONLY=runs-scale);
 * - compare (only with BENCH_BASELINE, a git revision): this tree's gateway against that revision's, in rounds turn about (bench/compare-builds.ts).
 *
 * PGlite always; PostgreSQL too when DATABASE_URL is set (each part makes a scratch
 * database and drops it). Options (env): BENCH_ONLY (comma-separated parts),
 * BENCH_SECONDS (3: one throughput round), BENCH_ROUNDS (5), BENCH_CONCURRENCY (32), BENCH_STREAMS (1000), KNOWLEDGE_BENCH_CHUNKS
 * (100000), BENCH_SOAK_REQUESTS, BENCH_BASELINE, BENCH_SCALE_ROWS (1000000, PGlite), BENCH_SCALE_ROWS_PG (5000000),
 * BENCH_SCALE_LOAD_SECONDS (60), BENCH_SCALE_CHUNKS (1000000, PostgreSQL), BENCH_SCALE_CHUNKS_PGLITE (100000),
 * BENCH_SCALE_INGEST_CHUNKS (30000), BENCH_SCALE_RUNS and BENCH_SCALE_CONVERSATIONS (1000000 on PostgreSQL, 100000 on PGlite). BENCH_JSON=1 prints everything as one JSON object on the
 * last line. A run of the first four parts together rewrites the table in docs/benchmarks.md
 * (BENCH_PAGE=0 leaves it), so the page always shows one run whole.
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { allocatorDefaults } from '../src/ops/allocator-env.ts';
import type { AgentTurnResult } from './agent-turn.ts';
import { printAgentTurns } from './agent-turn.ts';
import { runScript, stopAll } from './child-process.ts';
import { writeBenchmarkPage } from './benchmark-page.ts';
import { compiledScript } from './compiled-scripts.ts';
import { type KnowledgeBenchResult, printKnowledgeBench } from './knowledge-search.ts';
import { type FootprintResult, measureFootprint, printFootprint } from './server-footprint.ts';
import { type CompareResult, compareBuilds, printComparison } from './compare-builds.ts';
import { printScale, scale, type ScaleResult } from './scale.ts';
import { type KnowledgeScaleResult, printKnowledgeScale } from './knowledge-scale.ts';
import { printRunsScale, runsScale, runsScaleSizes, type RunsScaleResult } from './runs-scale.ts';
import { printSoak, soak, type SoakResult } from './soak.ts';
import { measureThroughput, printThroughput, type ThroughputRow } from './throughput.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const soakRequests = Number(process.env.BENCH_SOAK_REQUESTS ?? 0);
const databaseUrl = process.env.DATABASE_URL || undefined;
const only = process.env.BENCH_ONLY?.split(',').map((part) => part.trim());
const baseline = process.env.BENCH_BASELINE || undefined;
/** Soak and compare run only when asked for: by their option, or by name in BENCH_ONLY; scale only by name. */
const wanted = (part: string) => {
  if (only) return only.includes(part);
  if (part === 'soak') return soakRequests > 0;
  return part === 'compare' ? baseline !== undefined : part !== 'scale';
};
const engines: Array<{ engine: 'pglite' | 'postgres'; env: Record<string, string> }> = [
  { engine: 'pglite', env: { DATABASE_URL: '' } },
  ...(databaseUrl ? [{ engine: 'postgres' as const, env: { DATABASE_URL: databaseUrl } }] : []),
];
const json = process.env.BENCH_JSON === '1';
// With BENCH_JSON the tables go to stderr, so stdout's last line is the JSON.
if (json) console.log = (...values: unknown[]) => process.stderr.write(`${values.join(' ')}\n`);

const results: {
  date: string;
  machine: { cores: number; cpu: string; node: string };
  throughput?: ThroughputRow[];
  footprint?: FootprintResult[];
  agentTurn?: AgentTurnResult[];
  knowledge?: KnowledgeBenchResult[];
  soak?: SoakResult;
  compare?: CompareResult;
  scale?: ScaleResult[];
  knowledgeScale?: KnowledgeScaleResult[];
  runsScale?: RunsScaleResult[];
} = { date: new Date().toISOString(), machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version } };

/** The commit measured, marked when the tree has changes not committed. */
function currentCommit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8' }).trim();
  try {
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? ' + changes' : ''}`;
  } catch {
    return 'unknown';
  }
}

try {
  if (wanted('throughput')) {
    results.throughput = await measureThroughput({ seconds, rounds, concurrency, databaseUrl });
    printThroughput(results.throughput, { seconds, rounds, concurrency });
  }
  if (wanted('footprint')) {
    results.footprint = [];
    for (const { engine } of engines) results.footprint.push(await measureFootprint(engine, databaseUrl));
    printFootprint(results.footprint);
  }
  if (wanted('agent')) {
    results.agentTurn = [];
    for (const { env } of engines) results.agentTurn.push(await runScript<AgentTurnResult>(await compiledScript('bench/agent-turn.ts'), { ...env, ...allocatorDefaults(process.env) }));
    printAgentTurns(results.agentTurn);
  }
  if (wanted('knowledge')) {
    results.knowledge = [];
    for (const { env } of engines) {
      const result = await runScript<KnowledgeBenchResult>('bench/knowledge-search.ts', env);
      results.knowledge.push(result);
      printKnowledgeBench(result);
    }
  }
  if (wanted('compare')) {
    if (!baseline) throw new Error('the compare part needs BENCH_BASELINE, a git revision to compare this tree with (e.g. HEAD~1)');
    results.compare = await compareBuilds({ baseline, seconds, rounds: Number(process.env.BENCH_ROUNDS ?? 12), concurrency, databaseUrl });
    printComparison(results.compare, { seconds });
  }
  if (wanted('soak')) {
    results.soak = await soak({ requests: soakRequests || 1_000_000, concurrency, databaseUrl });
    printSoak(results.soak);
  }
  if (wanted('scale')) {
    results.scale = [];
    const loadSeconds = Number(process.env.BENCH_SCALE_LOAD_SECONDS ?? 60);
    for (const { engine } of engines) {
      const rows = Number((engine === 'postgres' ? process.env.BENCH_SCALE_ROWS_PG : process.env.BENCH_SCALE_ROWS) ?? (engine === 'postgres' ? 5_000_000 : 1_000_000));
      const totalRows = Number((engine === 'postgres' ? process.env.BENCH_SCALE_TOTAL_ROWS_PG : process.env.BENCH_SCALE_TOTAL_ROWS) ?? rows);
      const result = await scale({ databaseUrl: engine === 'postgres' ? databaseUrl : undefined, rows, totalRows, loadSeconds });
      results.scale.push(result);
      printScale(result);
    }
  }
  if (wanted('scale') || only?.includes('knowledge-scale')) {
    results.knowledgeScale = [];
    for (const { env } of engines) {
      const result = await runScript<KnowledgeScaleResult>('bench/knowledge-scale.ts', env);
      results.knowledgeScale.push(result);
      printKnowledgeScale(result);
    }
  }
  if (wanted('scale') || only?.includes('runs-scale')) {
    results.runsScale = [];
    for (const { engine } of engines) {
      const result = await runsScale({ databaseUrl: engine === 'postgres' ? databaseUrl : undefined, ...runsScaleSizes(engine) });
      results.runsScale.push(result);
      printRunsScale(result);
    }
  }
} finally {
  await stopAll();
}
if (process.env.BENCH_PAGE !== '0' && results.throughput && results.footprint && results.agentTurn && results.knowledge) {
  writeBenchmarkPage(new URL('../docs/benchmarks.md', import.meta.url).pathname, { ...results, commit: currentCommit() });
  console.log('\nwrote the table in docs/benchmarks.md');
}
if (json) process.stdout.write(`${JSON.stringify(results)}\n`);
