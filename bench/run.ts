/**
 * `npm run bench`: Junction's gateway (limits and billing on; PGlite, and PostgreSQL
 * when DATABASE_URL is set) against a bare fastify + undici.request proxy, both in
 * front of the same local fake upstream, streaming and not. Prints requests/s,
 * p50/p99 latency and CPU per request of the proxy process, and each as a ratio to the
 * bare proxy measured in the same run (these machines are shared: compare ratios).
 *
 * Options (env): BENCH_SECONDS (default 8), BENCH_CONCURRENCY (default 32).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createScratchDatabase } from '../test/support/test-database.ts';
import { cpuSeconds, percentile, runLoad } from './load.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const children: ChildProcess[] = [];

async function start(script: string, env: Record<string, string>): Promise<{ pid: number; info: Record<string, string> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    if (line.startsWith('{')) return { pid: child.pid ?? 0, info: JSON.parse(line) as Record<string, string> };
  }
  throw new Error(`${script} exited before it was ready`);
}

let benchDatabase: { url: string; drop(): Promise<void> } | undefined;
let workersDatabase: { url: string; drop(): Promise<void> } | undefined;

type Row = { target: string; mode: string; rps: number; p50: number; p99: number; cpuMicros: number; errors: number };

async function measure(target: string, pid: number, url: string, key: string | undefined, stream: boolean): Promise<Row> {
  const body = JSON.stringify({ model: 'openai/bench-model', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64, ...(stream && { stream: true, stream_options: { include_usage: true } }) });
  await runLoad({ url, ...(key && { key }), body, concurrency: CONCURRENCY, seconds: 1.5 }); // warm-up (JIT, leases, caches)
  // pid 0: several processes (workers) whose CPU is not one process's: not reported.
  const cpuBefore = pid ? cpuSeconds(pid) : 0;
  const result = await runLoad({ url, ...(key && { key }), body, concurrency: CONCURRENCY, seconds: SECONDS });
  const cpu = pid ? cpuSeconds(pid) - cpuBefore : Number.NaN;
  return {
    target,
    mode: stream ? 'stream' : 'json',
    rps: result.requests / result.seconds,
    p50: percentile(result.latenciesMs, 50),
    p99: percentile(result.latenciesMs, 99),
    cpuMicros: result.requests > 0 ? (cpu * 1e6) / result.requests : 0,
    errors: result.errors,
  };
}

try {
  const upstream = await start('bench/fake-upstream.ts', {});
  const upstreamUrl = upstream.info.url ?? '';
  const bare = await start('bench/bare-proxy.ts', { UPSTREAM_URL: upstreamUrl });
  const targets: Array<{ name: string; pid: number; url: string; key?: string }> = [{ name: 'bare fastify+undici', pid: bare.pid, url: `${bare.info.url}/v1` }];
  const pglite = await start('bench/gateway-server.ts', { UPSTREAM_URL: upstreamUrl, DATABASE_URL: '' });
  targets.push({ name: 'junction (pglite)', pid: pglite.pid, url: `${pglite.info.url}/v1`, ...(pglite.info.key && { key: pglite.info.key }) });
  if (process.env.DATABASE_URL) {
    // A fresh database per run, dropped afterwards, so runs never share state.
    benchDatabase = await createScratchDatabase(process.env.DATABASE_URL, 'junction_bench');
    const postgres = await start('bench/gateway-server.ts', { UPSTREAM_URL: upstreamUrl, DATABASE_URL: benchDatabase.url });
    targets.push({ name: 'junction (postgres)', pid: postgres.pid, url: `${postgres.info.url}/v1`, ...(postgres.info.key && { key: postgres.info.key }) });
    // The same on two worker processes (one port, one database): req/s with 1 and 2 workers.
    workersDatabase = await createScratchDatabase(process.env.DATABASE_URL, 'junction_bench_workers');
    const workers = await start('bench/workers-server.ts', { UPSTREAM_URL: upstreamUrl, DATABASE_URL: workersDatabase.url });
    targets.push({ name: 'junction (pg, 2 workers)', pid: 0, url: `${workers.info.url}/v1`, ...(workers.info.key && { key: workers.info.key }) });
  }
  const rows: Row[] = [];
  for (const stream of [false, true]) {
    for (const target of targets) rows.push(await measure(target.name, target.pid, target.url, target.key, stream));
  }
  console.log(`\n${SECONDS}s per run, ${CONCURRENCY} concurrent requests, one fake upstream; ratios are against the bare proxy in the same mode.\n`);
  console.log('target                 mode    req/s   ×bare   p50 ms  p99 ms  CPU µs/req  ×bare  errors');
  for (const row of rows) {
    const floor = rows.find((other) => other.mode === row.mode && other.target.startsWith('bare'));
    const ratio = (value: number, base: number | undefined) => (base ? (value / base).toFixed(2) : '-');
    console.log(
      `${row.target.padEnd(22)} ${row.mode.padEnd(6)} ${row.rps.toFixed(0).padStart(6)}  ${ratio(row.rps, floor?.rps).padStart(5)}  ${row.p50.toFixed(2).padStart(6)}  ${row.p99.toFixed(2).padStart(6)}  ${(Number.isNaN(row.cpuMicros) ? '-' : row.cpuMicros.toFixed(0)).padStart(10)}  ${(Number.isNaN(row.cpuMicros) ? '-' : ratio(row.cpuMicros, floor?.cpuMicros)).padStart(5)}  ${row.errors}`,
    );
  }
} finally {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((done) => setTimeout(done, 500));
  await benchDatabase?.drop();
  await workersDatabase?.drop();
}
