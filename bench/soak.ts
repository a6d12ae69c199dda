/**
 * Flatness over many requests: the gateway (as in the throughput bench, PostgreSQL when
 * DATABASE_URL is set) under steady JSON load in 10-second windows, comparing RSS and
 * latency in the window that crosses 100k requests with the one that crosses the end
 * (BENCH_SOAK_REQUESTS, e.g. 1000000). A leak or a growing structure shows as a
 * difference between the two.
 */
import { createScratchDatabase } from '../test/support/test-database.ts';
import { rssMegabytes, startScript } from './child-process.ts';
import { compiledScript } from './compiled-scripts.ts';
import { percentile, runLoad } from './load.ts';

export type SoakWindow = { requests: number; rssMb: number; p50: number; p99: number; rps: number };
export type SoakResult = { engine: string; concurrency: number; early: SoakWindow; late: SoakWindow; errors: number };

const EARLY = 100_000;

export async function soak(options: { requests: number; concurrency: number; databaseUrl: string | undefined }): Promise<SoakResult> {
  const scratch = options.databaseUrl ? await createScratchDatabase(options.databaseUrl, 'junction_bench_soak') : undefined;
  try {
    const upstream = await startScript('bench/fake-upstream.ts', {});
    const server = await startScript(await compiledScript('bench/gateway-server.ts'), { UPSTREAM_URL: upstream.info.url ?? '', DATABASE_URL: scratch?.url ?? '' });
    const body = JSON.stringify({ model: 'openai/bench-model', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64 });
    let total = 0;
    let errors = 0;
    let early: SoakWindow | undefined;
    let late: SoakWindow | undefined;
    while (!late) {
      const window = await runLoad({ url: `${server.info.url}/v1`, key: server.info.key ?? '', body, concurrency: options.concurrency, seconds: 10 });
      total += window.requests;
      errors += window.errors;
      const measured = { requests: total, rssMb: await rssMegabytes(server.pid), p50: percentile(window.latenciesMs, 50), p99: percentile(window.latenciesMs, 99), rps: window.requests / window.seconds };
      if (!early && total >= EARLY) early = measured;
      if (total >= options.requests) late = measured;
      if (total % 100_000 < window.requests) process.stderr.write(`  soak: ${total} requests, RSS ${measured.rssMb.toFixed(0)} MB, p50 ${measured.p50.toFixed(2)} ms\n`);
    }
    server.child.kill('SIGTERM');
    upstream.child.kill('SIGTERM');
    return { engine: scratch ? 'postgres' : 'pglite', concurrency: options.concurrency, early: early ?? late, late, errors };
  } finally {
    await new Promise((done) => setTimeout(done, 500));
    await scratch?.drop();
  }
}

export function printSoak(result: SoakResult): void {
  const change = (late: number, early: number) => `${(((late - early) / early) * 100).toFixed(1)}%`;
  console.log(`\nflatness (${result.engine}, ${result.concurrency} concurrent, JSON; 10 s windows; ${result.errors} errors):\n`);
  console.log('| window at | requests | RSS MB | p50 ms | p99 ms | req/s |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, window] of [['100k', result.early], ['end', result.late]] as const) {
    console.log(`| ${name} | ${window.requests} | ${window.rssMb.toFixed(0)} | ${window.p50.toFixed(2)} | ${window.p99.toFixed(2)} | ${window.rps.toFixed(0)} |`);
  }
  console.log(`| change | | ${change(result.late.rssMb, result.early.rssMb)} | ${change(result.late.p50, result.early.p50)} | ${change(result.late.p99, result.early.p99)} | ${change(result.late.rps, result.early.rps)} |`);
}
