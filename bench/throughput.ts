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
  /** The target process's CPU per request, all its threads. NaN for targets of several processes (workers). */
  cpuMicros: number;
  cpuRatio: number;
  /**
   * The database's CPU per request: PostgreSQL's backends serving the target (outside
   * cpuMicros), or PGlite's engine thread (inside it: the gateway's
   * junction_embedded_store_cpu_seconds_total). NaN for the workers.
   */
  databaseCpuMicros: number;
  /** The gateway's own work, its database's left out, to the bare proxy's CPU: alike on both engines. */
  withoutDatabaseCpuRatio: number;
  /** The gateway's and its database's CPU together to the bare proxy's: the whole cost of a call on either engine. */
  withDatabaseCpuRatio: number;
  errors: number;
  rounds: number;
};

export const WARM_UP_SECONDS = 4;

/** One target's figures in one round. */
export type RoundFigures = { rps: number; p50: number; p99: number; cpuMicros: number; databaseCpuMicros: number; databaseInProcess: boolean; errors: number };

/**
 * `database`: the PostgreSQL database only this target uses, whose backends' CPU is measured
 * too. `metricsUrl`: the gateway's /metrics, where an embedded engine's thread counts its CPU.
 */
export type Target = { name: string; pid: number; url: string; key?: string; database?: string; metricsUrl?: string };

/** Seconds of CPU the target's embedded engine thread has used, from its /metrics (NaN without that counter: PostgreSQL). */
async function embeddedEngineCpuSeconds(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const counted = /^junction_embedded_store_cpu_seconds_total (\S+)$/m.exec(text);
  return counted ? Number(counted[1]) : Number.NaN;
}

const requestBody = (stream: boolean) =>
  JSON.stringify({ model: 'openai/bench-model', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64, ...(stream && { stream: true, stream_options: { include_usage: true } }) });

export const loadFor = (target: Target, stream: boolean, concurrency: number) => ({ url: target.url, ...(target.key && { key: target.key }), body: requestBody(stream), concurrency });

export async function measureRound(target: Target, stream: boolean, seconds: number, concurrency: number): Promise<RoundFigures> {
  // pid 0: several processes (workers) whose CPU is not one process's: not reported.
  const engineCpuBefore = target.metricsUrl ? await embeddedEngineCpuSeconds(target.metricsUrl) : Number.NaN;
  const cpuBefore = target.pid ? cpuSeconds(target.pid) : 0;
  const databaseCpuBefore = target.database ? databaseServerCpuSeconds(target.database) : Number.NaN;
  const result = await runLoad({ ...loadFor(target, stream, concurrency), seconds });
  const cpu = target.pid ? cpuSeconds(target.pid) - cpuBefore : Number.NaN;
  const databaseCpu = target.database ? databaseServerCpuSeconds(target.database) - databaseCpuBefore : Number.NaN;
  // Read after the process's CPU: the scrape's own work is not counted in either.
  const engineCpu = target.metricsUrl ? (await embeddedEngineCpuSeconds(target.metricsUrl)) - engineCpuBefore : Number.NaN;
  const databaseInProcess = !Number.isNaN(engineCpu);
  const perRequest = (total: number) => (result.requests > 0 ? (total * 1e6) / result.requests : 0);
  return {
    rps: result.requests / result.seconds,
    p50: percentile(result.latenciesMs, 50),
    p99: percentile(result.latenciesMs, 99),
    cpuMicros: perRequest(cpu),
    databaseCpuMicros: perRequest(databaseInProcess ? engineCpu : databaseCpu),
    databaseInProcess,
    errors: result.errors,
  };
}

export const median = (values: number[]): number => {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/** A round's CPU per request without its database's: an engine thread's is taken out, backends were never in. */
const gatewayOnlyCpu = (round: RoundFigures): number => (round.databaseInProcess ? round.cpuMicros - round.databaseCpuMicros : round.cpuMicros);

/** A round's CPU per request with its database's: backends are added, an engine thread is already in. */
const gatewayAndDatabaseCpu = (round: RoundFigures): number => (round.databaseInProcess || Number.isNaN(round.databaseCpuMicros) ? round.cpuMicros : round.cpuMicros + round.databaseCpuMicros);

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
    withoutDatabaseCpuRatio: ratios(gatewayOnlyCpu),
    withDatabaseCpuRatio: ratios(gatewayAndDatabaseCpu),
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
      targets.push({
        name,
        pid: pid ? started.pid : 0,
        url: `${started.info.url}/v1`,
        ...(started.info.key && { key: started.info.key }),
        ...(database && { database }),
        // The embedded engine's thread counts its own CPU there (PostgreSQL's backends are read from the server).
        ...(pid && !databaseUrl && { metricsUrl: `${started.info.url}/metrics` }),
      });
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
  console.log('target                    mode    req/s  ×bare  p50 ms  p99 ms  ×bare  CPU µs/req  ×bare  DB µs/req  no DB ×bare  with DB ×bare  errors');
  for (const row of rows) {
    console.log(
      `${row.target.padEnd(25)} ${row.mode.padEnd(6)} ${row.rps.toFixed(0).padStart(6)}  ${fixed(row.rpsRatio, 2).padStart(5)}  ${row.p50.toFixed(2).padStart(6)}  ${row.p99.toFixed(2).padStart(6)}  ${fixed(row.p99Ratio, 2).padStart(5)}  ${fixed(row.cpuMicros, 0).padStart(10)}  ${fixed(row.cpuRatio, 2).padStart(5)}  ${fixed(row.databaseCpuMicros, 0).padStart(9)}  ${fixed(row.withoutDatabaseCpuRatio, 2).padStart(11)}  ${fixed(row.withDatabaseCpuRatio, 2).padStart(13)}  ${row.errors}`,
    );
  }
  console.log(
    '\n"CPU" is the target process\'s, all its threads. "DB" is its database\'s: on PostgreSQL the backends serving the ' +
      'target\'s database (outside the process), on PGlite the engine\'s thread (inside it, from /metrics). "no DB" is the ' +
      'gateway\'s own work without either, "with DB" the two together, each to the bare proxy\'s CPU: alike on both engines.',
  );
}
