/**
 * Requests per second, p50/p99 latency and CPU per request of Junction's gateway (limits
 * and billing on; PGlite, and PostgreSQL when DATABASE_URL is set, also on two worker
 * processes) against a bare fastify + undici.request proxy, all in front of the same
 * local fake upstream, JSON and streaming. Ratios are to the bare proxy in the same run:
 * these machines are shared, so only ratios compare across runs.
 */
import { createScratchDatabase } from '../test/support/test-database.ts';
import { startScript as startChild } from './child-process.ts';
import { compiledScript } from './compiled-scripts.ts';
import { cpuSeconds, percentile, runLoad } from './load.ts';

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
  errors: number;
};

type Target = { name: string; pid: number; url: string; key?: string };

async function measure(target: Target, stream: boolean, seconds: number, concurrency: number): Promise<Omit<ThroughputRow, 'rpsRatio' | 'p99Ratio' | 'cpuRatio'>> {
  const body = JSON.stringify({ model: 'openai/bench-model', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64, ...(stream && { stream: true, stream_options: { include_usage: true } }) });
  const load = { url: target.url, ...(target.key && { key: target.key }), body, concurrency };
  await runLoad({ ...load, seconds: 1.5 }); // warm-up (JIT, leases, caches)
  // pid 0: several processes (workers) whose CPU is not one process's: not reported.
  const cpuBefore = target.pid ? cpuSeconds(target.pid) : 0;
  const result = await runLoad({ ...load, seconds });
  const cpu = target.pid ? cpuSeconds(target.pid) - cpuBefore : Number.NaN;
  return {
    target: target.name,
    mode: stream ? 'stream' : 'json',
    rps: result.requests / result.seconds,
    p50: percentile(result.latenciesMs, 50),
    p99: percentile(result.latenciesMs, 99),
    cpuMicros: result.requests > 0 ? (cpu * 1e6) / result.requests : 0,
    errors: result.errors,
  };
}

export async function measureThroughput(options: { seconds: number; concurrency: number; databaseUrl: string | undefined }): Promise<ThroughputRow[]> {
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
      const started = await startScript(script, { UPSTREAM_URL: upstreamUrl, DATABASE_URL: databaseUrl });
      targets.push({ name, pid: pid ? started.pid : 0, url: `${started.info.url}/v1`, ...(started.info.key && { key: started.info.key }) });
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
    const rows: Array<Awaited<ReturnType<typeof measure>>> = [];
    for (const stream of [false, true]) {
      for (const target of targets) rows.push(await measure(target, stream, options.seconds, options.concurrency));
    }
    return rows.map((row) => {
      const floor = rows.find((other) => other.mode === row.mode && other.target.startsWith('bare'));
      const ratio = (value: number, base: number | undefined) => (base ? value / base : Number.NaN);
      return { ...row, rpsRatio: ratio(row.rps, floor?.rps), p99Ratio: ratio(row.p99, floor?.p99), cpuRatio: ratio(row.cpuMicros, floor?.cpuMicros) };
    });
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((done) => setTimeout(done, 500));
    for (const database of scratch) await database.drop().catch(() => undefined);
  }
}

export function printThroughput(rows: ThroughputRow[], options: { seconds: number; concurrency: number }): void {
  const fixed = (value: number, digits: number) => (Number.isNaN(value) ? '-' : value.toFixed(digits));
  console.log(`\nthroughput: ${options.seconds} s per run, ${options.concurrency} concurrent requests, one fake upstream; ratios are against the bare proxy in the same mode.\n`);
  console.log('target                    mode    req/s  ×bare  p50 ms  p99 ms  ×bare  CPU µs/req  ×bare  errors');
  for (const row of rows) {
    console.log(
      `${row.target.padEnd(25)} ${row.mode.padEnd(6)} ${row.rps.toFixed(0).padStart(6)}  ${fixed(row.rpsRatio, 2).padStart(5)}  ${row.p50.toFixed(2).padStart(6)}  ${row.p99.toFixed(2).padStart(6)}  ${fixed(row.p99Ratio, 2).padStart(5)}  ${fixed(row.cpuMicros, 0).padStart(10)}  ${fixed(row.cpuRatio, 2).padStart(5)}  ${row.errors}`,
    );
  }
}
