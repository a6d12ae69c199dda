/**
 * Requests per second, p50/p99 latency and CPU per request of Junction's gateway (limits
 * and billing on; PGlite, and PostgreSQL when DATABASE_URL is set, also on two worker
 * processes) against a bare fastify + undici.request proxy, all in front of the same
 * local fake upstream, JSON and streaming. Ratios are to the bare proxy in the same run:
 * these machines are shared, so only ratios compare across runs.
 *
 * The targets are measured turn about, in rounds (bare, PGlite, PostgreSQL, workers, then
 * again), and each figure is the median of its rounds, each ratio the median of the rounds'
 * ratios to the bare proxy in the same round: on these machines one target's 8 seconds
 * alone could fall in a minute twice as slow as the next target's, which a single pass
 * turned into a ratio. Each target is warmed up first for WARM_UP_SECONDS: V8 was still
 * optimising the gateway's functions 4 s into a cold run (about 1,100 by 4 s, 1,340 by 24 s),
 * and a gateway is measured running, not starting.
 */
import { allocatorDefaults } from '../src/ops/allocator-env.ts';
import { createScratchDatabase } from '../test/support/test-database.ts';
import { startScript as startChild } from './child-process.ts';
import { compiledScript } from './compiled-scripts.ts';
import { cpuSeconds, databaseServerCpuSeconds, percentile, runLoad } from './load.ts';

export type ThroughputRow = {
  target: string;
  mode: 'json' | 'stream';
  rps: number;
  rpsRatio: number;
  p50: number;
  p99: number;
  p99Ratio: number;
  /** NaN for targets of several processes (workers). */
  cpuMicros: number;
  cpuRatio: number;
  /**
   * CPU per request of the PostgreSQL backends serving the target (NaN for PGlite, whose
   * engine is a thread of the gateway and so already in cpuMicros, and for the workers).
   */
  databaseCpuMicros: number;
  /** (cpuMicros + databaseCpuMicros) to the bare proxy's CPU: the whole cost of a call on either engine. */
  withDatabaseCpuRatio: number;
  errors: number;
  rounds: number;
};

const WARM_UP_SECONDS = 4;

/** One target's figures in one round. */
type RoundFigures = { rps: number; p50: number; p99: number; cpuMicros: number; databaseCpuMicros: number; errors: number };

/** `database`: the PostgreSQL database only this target uses, whose backends' CPU is measured too. */
type Target = { name: string; pid: number; url: string; key?: string; database?: string };

const requestBody = (stream: boolean) =>
  JSON.stringify({ model: 'openai/bench-model', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64, ...(stream && { stream: true, stream_options: { include_usage: true } }) });

const loadFor = (target: Target, stream: boolean, concurrency: number) => ({ url: target.url, ...(target.key && { key: target.key }), body: requestBody(stream), concurrency });

async function measureRound(target: Target, stream: boolean, seconds: number, concurrency: number): Promise<RoundFigures> {
  // pid 0: several processes (workers) whose CPU is not one process's: not reported.
  const cpuBefore = target.pid ? cpuSeconds(target.pid) : 0;
  const databaseCpuBefore = target.database ? databaseServerCpuSeconds(target.database) : Number.NaN;
  const result = await runLoad({ ...loadFor(target, stream, concurrency), seconds });
  const cpu = target.pid ? cpuSeconds(target.pid) - cpuBefore : Number.NaN;
  const databaseCpu = target.database ? databaseServerCpuSeconds(target.database) - databaseCpuBefore : Number.NaN;
  const perRequest = (total: number) => (result.requests > 0 ? (total * 1e6) / result.requests : 0);
  return {
    rps: result.requests / result.seconds,
    p50: percentile(result.latenciesMs, 50),
    p99: percentile(result.latenciesMs, 99),
    cpuMicros: perRequest(cpu),
    databaseCpuMicros: perRequest(databaseCpu),
    errors: result.errors,
  };
}

const median = (values: number[]): number => {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/** A target's rounds → its row: medians of the figures and of the ratios to the floor's figures in the same rounds. */
function summarise(name: string, stream: boolean, rounds: RoundFigures[], floor: RoundFigures[]): ThroughputRow {
  const ratios = (pick: (figures: RoundFigures) => number) => median(rounds.map((round, index) => pick(round) / pick(floor[index] as RoundFigures)));
  return {
    target: name,
    mode: stream ? 'stream' : 'json',
    rps: median(rounds.map((round) => round.rps)),
    rpsRatio: ratios((round) => round.rps),
    p50: median(rounds.map((round) => round.p50)),
    p99: median(rounds.map((round) => round.p99)),
    p99Ratio: ratios((round) => round.p99),
    cpuMicros: median(rounds.map((round) => round.cpuMicros)),
    cpuRatio: ratios((round) => round.cpuMicros),
    databaseCpuMicros: median(rounds.map((round) => round.databaseCpuMicros)),
    // The bare proxy has no database: its own CPU is the floor for both.
    withDatabaseCpuRatio: median(
      rounds.map((round, index) => (round.cpuMicros + (Number.isNaN(round.databaseCpuMicros) ? 0 : round.databaseCpuMicros)) / (floor[index] as RoundFigures).cpuMicros),
    ),
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
    rounds: rounds.length,
  };
}

export async function measureThroughput(options: { seconds: number; rounds: number; concurrency: number; databaseUrl: string | undefined }): Promise<ThroughputRow[]> {
  const scratch: Array<{ drop(): Promise<void> }> = [];
  const children: Array<Awaited<ReturnType<typeof startChild>>['child']> = [];
  // Stopped when this part ends, so their timers cost the later parts nothing.
  const startScript = async (script: string, env: Record<string, string>) => {
    const started = await startChild(script, env);
    children.push(started.child);
    return started;
  };
  try {
    const upstream = await startScript('bench/fake-upstream.ts', {});
    const upstreamUrl = upstream.info.url ?? '';
    const bare = await startScript('bench/bare-proxy.ts', { UPSTREAM_URL: upstreamUrl });
    const targets: Target[] = [{ name: 'bare fastify+undici', pid: bare.pid, url: `${bare.info.url}/v1` }];
    const addTarget = async (name: string, script: string, databaseUrl: string, pid = true) => {
      // With the allocator settings `npm start` gives the server (src/ops/allocator-env.ts).
      const started = await startScript(script, { UPSTREAM_URL: upstreamUrl, DATABASE_URL: databaseUrl, ...allocatorDefaults(process.env) });
      const database = pid && databaseUrl ? new URL(databaseUrl).pathname.slice(1) : undefined;
      targets.push({ name, pid: pid ? started.pid : 0, url: `${started.info.url}/v1`, ...(started.info.key && { key: started.info.key }), ...(database && { database }) });
    };
    const gatewayServer = await compiledScript('bench/gateway-server.ts');
    await addTarget('junction (pglite)', gatewayServer, '');
    if (options.databaseUrl) {
      // A fresh database per target, dropped afterwards, so runs never share state.
      const single = await createScratchDatabase(options.databaseUrl, 'junction_bench');
      const workers = await createScratchDatabase(options.databaseUrl, 'junction_bench_workers');
      scratch.push(single, workers);
      await addTarget('junction (postgres)', gatewayServer, single.url);
      // The same on two worker processes (one port, one database).
      await addTarget('junction (pg, 2 workers)', 'bench/workers-server.ts', workers.url, false);
    }
    const rows: ThroughputRow[] = [];
    for (const stream of [false, true]) {
      // Warm-up (JIT, leases, caches), then the rounds, each target in turn.
      for (const target of targets) await runLoad({ ...loadFor(target, stream, options.concurrency), seconds: WARM_UP_SECONDS });
      const rounds = targets.map((): RoundFigures[] => []);
      for (let round = 0; round < options.rounds; round += 1) {
        for (const [index, target] of targets.entries()) rounds[index]?.push(await measureRound(target, stream, options.seconds, options.concurrency));
      }
      const floor = rounds[0] ?? [];
      for (const [index, target] of targets.entries()) rows.push(summarise(target.name, stream, rounds[index] ?? [], floor));
    }
    return rows;
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((done) => setTimeout(done, 500));
    for (const database of scratch) await database.drop().catch(() => undefined);
  }
}

export function printThroughput(rows: ThroughputRow[], options: { seconds: number; rounds: number; concurrency: number }): void {
  const fixed = (value: number, digits: number) => (Number.isNaN(value) ? '-' : value.toFixed(digits));
  console.log(
    `\nthroughput: ${options.rounds} rounds of ${options.seconds} s per target, turn about, after ${WARM_UP_SECONDS} s of warm-up; ${options.concurrency} concurrent requests, one fake upstream.` +
      '\nEach figure is the median of its rounds; each ratio the median of its ratios to the bare proxy in the same round.\n',
  );
  console.log('target                    mode    req/s  ×bare  p50 ms  p99 ms  ×bare  CPU µs/req  ×bare  + DB µs/req  ×bare  errors');
  for (const row of rows) {
    console.log(
      `${row.target.padEnd(25)} ${row.mode.padEnd(6)} ${row.rps.toFixed(0).padStart(6)}  ${fixed(row.rpsRatio, 2).padStart(5)}  ${row.p50.toFixed(2).padStart(6)}  ${row.p99.toFixed(2).padStart(6)}  ${fixed(row.p99Ratio, 2).padStart(5)}  ${fixed(row.cpuMicros, 0).padStart(10)}  ${fixed(row.cpuRatio, 2).padStart(5)}  ${fixed(row.databaseCpuMicros, 0).padStart(11)}  ${fixed(row.withDatabaseCpuRatio, 2).padStart(5)}  ${row.errors}`,
    );
  }
  console.log(
    '\n"CPU" is the target process\'s own (on PGlite that includes the database engine, a thread of it); "+ DB" adds, for ' +
      "PostgreSQL, its backends serving the target's database, and its ratio is of the two together to the bare proxy's CPU.",
  );
}
