import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startFakeOpenAIUpstream } from './fake-openai-upstream.ts';
import { UPSTREAM_KEYS } from './gateway-harness.ts';
import { type ServerProcess, startServerProcess } from './server-process.ts';
import { freshStorage } from './test-database.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');

/**
 * The world of a takeover test: a slow fake upstream, a scratch database, a data folder,
 * and server processes on them with short run leases, so a process that takes over a
 * killed one's run starts within seconds. Servers and the CLI share one environment.
 */
export type TakeoverHarness = {
  upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
  storage: Awaited<ReturnType<typeof freshStorage>>;
  dataDir: string;
  start(): Promise<ServerProcess>;
  cli(...args: string[]): Promise<string>;
  close(): Promise<void>;
};

export async function startTakeoverHarness(options: { folderEnv: NodeJS.ProcessEnv; slowChunkDelayMs: number; name: string }): Promise<TakeoverHarness> {
  const upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai, slowChunkDelayMs: options.slowChunkDelayMs });
  const storage = await freshStorage();
  const dataDir = mkdtempSync(join(tmpdir(), `junction-${options.name}-`));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(storage.databaseUrl && { DATABASE_URL: storage.databaseUrl }),
    ...options.folderEnv,
    PORT: '0',
    LOG_LEVEL: 'info',
    JUNCTION_DATA_DIR: dataDir,
    OPENAI_API_KEY: UPSTREAM_KEYS.openai,
    OPENAI_BASE_URL: upstream.url,
    JUNCTION_RUN_LEASE_SECONDS: '2',
  };
  const servers: ServerProcess[] = [];
  return {
    upstream,
    storage,
    dataDir,
    async start() {
      const server = await startServerProcess(env);
      servers.push(server);
      return server;
    },
    async cli(...args) {
      return (await run(process.execPath, [join(ROOT, 'bin/junction.js'), ...args], { env, timeout: 60_000 })).stdout;
    },
    async close() {
      for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await upstream.close();
      await storage.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `read` every 50 ms until it gives a value, for at most a minute. */
export async function waitFor<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const value = await read();
    if (value !== undefined) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}
