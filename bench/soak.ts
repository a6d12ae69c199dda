/**
 * Flatness over many requests: the gateway (as in the throughput bench, PostgreSQL when
 * DATABASE_URL is set) under steady JSON load in 10-second windows, comparing RSS and
 * latency in the window that crosses 100k requests with the one that crosses the end
 * (BENCH_SOAK_REQUESTS, e.g. 1000000). A leak or a growing structure shows as a
 * difference between the two, and as a slope of RSS over the request count across every
 * window. A window's RSS is the median of one sample a second: a single sample lands
 * anywhere on the garbage collector's sawtooth (one run's end sample was 21% above its
 * 100k sample, the next run's 18% below, with no trend between). Latency has the same
 * trouble on these shared machines (one run's windows had p50s from 4.8 to 9.2 ms in no
 * order), so each figure's slope over every window from 100k on is given too: a structure
 * that grows with the log shows there, one noisy window does not.
 */
import { allocatorDefaults } from '../src/ops/allocator-env.ts';
import { createScratchDatabase } from '../test/support/test-database.ts';
import { rssMegabytes, startScript } from './child-process.ts';
import { compiledScript } from './compiled-scripts.ts';
import { percentile, runLoad } from './load.ts';

export type SoakWindow = { requests: number; rssMb: number; p50: number; p99: number; rps: number };
export type SoakTrend = { rss: number; p50: number; p99: number };
export type SoakResult = {
  engine: string;
  concurrency: number;
  early: SoakWindow;
  late: SoakWindow;
  errors: number;
  rssSlopeMbPer100k: number;
  /** Least-squares slope of each figure over the windows from 100k on, per 100k requests, as a share of its fitted value at 100k. */
  trendPer100k: SoakTrend;
};

const EARLY = 100_000;

export async function soak(options: { requests: number; concurrency: number; databaseUrl: string | undefined }): Promise<SoakResult> {
  const scratch = options.databaseUrl ? await createScratchDatabase(options.databaseUrl, 'junction_bench_soak') : undefined;
  try {
    const upstream = await startScript('bench/fake-upstream.ts', {});
    const server = await startScript(await compiledScript('bench/gateway-server.ts'), {
      UPSTREAM_URL: upstream.info.url ?? '',
      DATABASE_URL: scratch?.url ?? '',
      // As `npm start` runs the server (src/ops/allocator-env.ts).
      ...allocatorDefaults(process.env),
    });
    const body = JSON.stringify({ model: 'openai/bench-model', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64 });
    let total = 0;
    let errors = 0;
    let early: SoakWindow | undefined;
    let late: SoakWindow | undefined;
    const windows: SoakWindow[] = [];
    while (!late) {
      const samples: number[] = [];
      const sampler = setInterval(() => void rssMegabytes(server.pid).then((mb) => samples.push(mb)), 1000);
      const window = await runLoad({ url: `${server.info.url}/v1`, key: server.info.key ?? '', body, concurrency: options.concurrency, seconds: 10 });
      clearInterval(sampler);
      total += window.requests;
      errors += window.errors;
      const rssMb = samples.length > 0 ? percentile(samples, 50) : await rssMegabytes(server.pid);
      const measured = { requests: total, rssMb, p50: percentile(window.latenciesMs, 50), p99: percentile(window.latenciesMs, 99), rps: window.requests / window.seconds };
      windows.push(measured);
      if (!early && total >= EARLY) early = measured;
      if (total >= options.requests) late = measured;
      if (total % 100_000 < window.requests)
        process.stderr.write(`  soak: ${total} requests, RSS ${measured.rssMb.toFixed(0)} MB (window median), p50 ${measured.p50.toFixed(2)} ms, p99 ${measured.p99.toFixed(2)} ms\n`);
    }
    server.child.kill('SIGTERM');
    upstream.child.kill('SIGTERM');
    // From 100k on (the start is warm-up: caches, JIT, pools filling).
    const steady = windows.filter((window) => window.requests >= EARLY);
    const trend = (pick: (window: SoakWindow) => number) => relativeSlopePer100k(steady, pick);
    return {
      engine: scratch ? 'postgres' : 'pglite',
      concurrency: options.concurrency,
      early: early ?? late,
      late,
      errors,
      rssSlopeMbPer100k: slope(steady, (window) => window.rssMb).perRequest * 100_000,
      trendPer100k: { rss: trend((window) => window.rssMb), p50: trend((window) => window.p50), p99: trend((window) => window.p99) },
    };
  } finally {
    await new Promise((done) => setTimeout(done, 500));
    await scratch?.drop();
  }
}

/** Least-squares line of a figure over the request count: its slope per request and its value at `at` requests. */
function slope(windows: readonly SoakWindow[], pick: (window: SoakWindow) => number, at = EARLY): { perRequest: number; valueAt: number } {
  if (windows.length < 2) return { perRequest: 0, valueAt: windows[0] ? pick(windows[0]) : 0 };
  const meanX = windows.reduce((sum, window) => sum + window.requests, 0) / windows.length;
  const meanY = windows.reduce((sum, window) => sum + pick(window), 0) / windows.length;
  let covariance = 0;
  let variance = 0;
  for (const window of windows) {
    covariance += (window.requests - meanX) * (pick(window) - meanY);
    variance += (window.requests - meanX) ** 2;
  }
  const perRequest = variance === 0 ? 0 : covariance / variance;
  return { perRequest, valueAt: meanY + perRequest * (at - meanX) };
}

/** A figure's fitted change per 100k requests as a share of its fitted value at 100k (0.01 = 1% per 100k). */
function relativeSlopePer100k(windows: readonly SoakWindow[], pick: (window: SoakWindow) => number): number {
  const line = slope(windows, pick);
  return line.valueAt === 0 ? 0 : (line.perRequest * 100_000) / line.valueAt;
}

export function printSoak(result: SoakResult): void {
  const change = (late: number, early: number) => `${(((late - early) / early) * 100).toFixed(1)}%`;
  console.log(`\nflatness (${result.engine}, ${result.concurrency} concurrent, JSON; 10 s windows; ${result.errors} errors):\n`);
  console.log('| window at | requests | RSS MB | p50 ms | p99 ms | req/s |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, window] of [
    ['100k', result.early],
    ['end', result.late],
  ] as const) {
    console.log(`| ${name} | ${window.requests} | ${window.rssMb.toFixed(0)} | ${window.p50.toFixed(2)} | ${window.p99.toFixed(2)} | ${window.rps.toFixed(0)} |`);
  }
  console.log(
    `| change | | ${change(result.late.rssMb, result.early.rssMb)} | ${change(result.late.p50, result.early.p50)} | ${change(result.late.p99, result.early.p99)} | ${change(result.late.rps, result.early.rps)} |`,
  );
  console.log(`\nRSS (median of a window's per-second samples) over every window from 100k on: ${result.rssSlopeMbPer100k.toFixed(2)} MB per 100k requests.`);
  const percent = (share: number) => `${share >= 0 ? '+' : ''}${(share * 100).toFixed(2)}%`;
  const { rss, p50, p99 } = result.trendPer100k;
  console.log(`Fitted lines over the same windows, per 100k requests, as a share of their value at 100k: RSS ${percent(rss)}, p50 ${percent(p50)}, p99 ${percent(p99)}.`);
}
