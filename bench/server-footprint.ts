/**
 * `npm start` as a user runs it, per engine: seconds from the command to "junction is
 * ready" (the first start, which creates the store, and three more on the existing
 * store), the idle RSS of the server process (3 s after ready, and again once it has been
 * idle for SETTLE_SECONDS), and what 1,000 open streams add to it.
 *
 * The streams go to the fake upstream's `bench-hold` model, which sends one chunk and
 * then holds every stream open until released, so all 1,000 are open at once.
 * BENCH_STREAMS (default 1000) sets how many.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Pool, request } from 'undici';
import { createScratchDatabase } from '../test/support/test-database.ts';
import { rssMegabytes, startScript } from './child-process.ts';

export type FootprintResult = {
  engine: 'pglite' | 'postgres';
  /** Seconds from `npm start` to "junction is ready". */
  firstStartSeconds: number;
  startSeconds: number[];
  /** RSS 3 s after ready. */
  idleRssMb: number;
  /**
   * RSS after SETTLE_SECONDS of idleness. V8 shrinks each isolate's heap (the server's and
   * the embedded database's thread) only when its memory reducer runs, 8 s or more after
   * the start's last full collection; a forced collection does not shrink it. Until then
   * the start's young-generation growth stays resident: 20-50 MB here.
   */
  settledIdleRssMb: number;
  streams: number;
  /** RSS with every stream open, minus RSS just before they opened (after a warm-up of the same calls). */
  streamsRssMb: number;
  streamsCompleted: number;
};

const ROOT = new URL('..', import.meta.url).pathname;
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const SETTLE_SECONDS = 30;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
/** This process's environment without DATABASE_URL: the engine is chosen per run. */
const { DATABASE_URL: _engineChosenPerRun, ...baseEnv } = process.env;

type Server = { child: ChildProcess; pid: number; url: string; seconds: number };

/** `npm start`; resolves once the server logs that it is ready, with the server's own pid (npm is its parent). */
async function npmStart(env: Record<string, string>): Promise<Server> {
  const began = performance.now();
  const child = spawn('npm', ['start', '--silent'], { cwd: ROOT, env: { ...baseEnv, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  // The listener stays for the server's life: an unread stdout pipe would block its logging.
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  return new Promise<Server>((resolve, reject) => {
    let ready = false;
    lines.on('line', (line) => {
      if (process.env.BENCH_DEBUG) process.stderr.write(`npm start: ${line}\n`);
      if (ready || !line.includes('junction is ready')) return;
      ready = true;
      const logged = JSON.parse(line) as { pid: number; url: string };
      resolve({ child, pid: logged.pid, url: logged.url, seconds: (performance.now() - began) / 1000 });
    });
    child.once('exit', () => {
      if (!ready) reject(new Error('npm start exited before the server was ready'));
    });
  });
}

async function stop(server: Server): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((done) => server.child.once('exit', done));
  server.child.kill('SIGTERM');
  await exited;
}

/** The CLI on the same store, while no server holds it. */
function cli(env: Record<string, string>, args: string[]): string {
  return execFileSync(process.execPath, ['bin/junction.js', ...args], { cwd: ROOT, env: { ...baseEnv, ...env }, encoding: 'utf8' });
}

async function openStreams(url: string, key: string, upstream: string, count: number): Promise<{ release: () => Promise<void>; completed: Promise<number> }> {
  const pool = new Pool(url, { connections: count, pipelining: 1 });
  const body = JSON.stringify({ model: 'openai/bench-hold', messages: [{ role: 'user', content: 'Hold on.' }], max_tokens: 64, stream: true });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const responses = Array.from({ length: count }, () => pool.request({ path: '/v1/chat/completions', method: 'POST', headers, body }));
  const opened = await Promise.all(responses);
  // Every stream has its headers; wait until the upstream holds every one of them too.
  for (let waited = 0; waited < 30_000; waited += 50) {
    const { held } = (await (await request(`${upstream}/held`)).body.json()) as { held: number };
    if (held >= count) break;
    await sleep(50);
  }
  const completed = Promise.all(opened.map(async (response) => response.statusCode === 200 && (await response.body.text()).includes('[DONE]'))).then(async (results) => {
    await pool.close();
    return results.filter(Boolean).length;
  });
  return {
    release: async () => {
      await request(`${upstream}/release`, { method: 'POST' }).then((answer) => answer.body.dump());
    },
    completed,
  };
}

export async function measureFootprint(engine: 'pglite' | 'postgres', databaseUrl: string | undefined): Promise<FootprintResult> {
  const dir = mkdtempSync(join(tmpdir(), 'junction-bench-footprint-'));
  const scratch = engine === 'postgres' && databaseUrl ? await createScratchDatabase(databaseUrl, 'junction_bench_footprint') : undefined;
  const upstream = await startScript('bench/fake-upstream.ts', {});
  const upstreamUrl = upstream.info.url ?? '';
  const upstreamOrigin = new URL(upstreamUrl).origin;
  const config = join(dir, 'junction.yaml');
  writeFileSync(config, 'models:\n  openai/bench-model: &bench\n    capabilities: [chat]\n    max_output_tokens: 1024\n    prices: { input: 0.15, output: 0.6 }\n  openai/bench-hold: *bench\n');
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    PORT: '0',
    JUNCTION_DATA_DIR: join(dir, 'data'),
    JUNCTION_CONFIG: config,
    JUNCTION_LOG_FORMAT: 'json',
    OPENAI_API_KEY: 'upstream',
    OPENAI_BASE_URL: upstreamUrl,
    ...(scratch && { DATABASE_URL: scratch.url }),
  };
  let server: Server | undefined;
  try {
    const progress = (step: string) => process.stderr.write(`  footprint (${engine}): ${step}\n`);
    progress('first start');
    const first = await npmStart(env);
    await stop(first);
    progress('credit and a key');
    cli(env, ['credits', 'grant', '--amount', '1000', '--currency', 'USD']);
    const { key } = JSON.parse(cli(env, ['keys', 'create', '--kind', 'model', '--name', 'bench', '--json'])) as { key: string };
    progress('three starts on the existing store');
    const startSeconds: number[] = [];
    for (let start = 0; start < 3; start += 1) {
      if (server) await stop(server);
      server = await npmStart(env);
      startSeconds.push(server.seconds);
    }
    if (!server) throw new Error('no server');
    await sleep(3000);
    const idleRssMb = await rssMegabytes(server.pid);
    progress(`idle for ${SETTLE_SECONDS} s`);
    await sleep((SETTLE_SECONDS - 3) * 1000);
    const settledIdleRssMb = await rssMegabytes(server.pid);
    // Warm-up with the same calls (JIT, pools, leases), so the difference is the streams' own.
    const warm = await openStreams(server.url, key, upstreamOrigin, 100);
    await warm.release();
    await warm.completed;
    await sleep(1000);
    const before = await rssMegabytes(server.pid);
    progress(`${STREAMS} open streams`);
    const streams = await openStreams(server.url, key, upstreamOrigin, STREAMS);
    const during = await rssMegabytes(server.pid);
    await streams.release();
    const streamsCompleted = await streams.completed;
    return { engine, firstStartSeconds: first.seconds, startSeconds, idleRssMb, settledIdleRssMb, streams: STREAMS, streamsRssMb: during - before, streamsCompleted };
  } finally {
    if (server) await stop(server);
    upstream.child.kill('SIGTERM');
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printFootprint(results: FootprintResult[]): void {
  console.log('\nstart-up and memory (`npm start`, the compiled server; a fresh data folder or database):\n');
  console.log(`| store | first start (creates the store) | start on the existing store | idle RSS (3 s; ${SETTLE_SECONDS} s after ready) | RSS added by open streams |`);
  console.log('|---|---:|---:|---:|---:|');
  for (const result of results) {
    const starts = result.startSeconds.map((seconds) => seconds.toFixed(2)).join(', ');
    console.log(
      `| ${result.engine} | ${result.firstStartSeconds.toFixed(2)} s | ${starts} s | ${result.idleRssMb.toFixed(0)}; ${result.settledIdleRssMb.toFixed(0)} MB | ${result.streamsRssMb.toFixed(0)} MB for ${result.streams} (${result.streamsCompleted} completed) |`,
    );
  }
}
