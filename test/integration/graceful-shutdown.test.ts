import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIUpstream } from '../support/fake-openai-upstream.ts';
import { TEST_CONFIG, UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { SERVER_ARGS } from '../support/server-process.ts';
import { freshStorage } from '../support/test-database.ts';

/**
 * `npm start` as a real process: ready on /healthz, and on SIGTERM it finishes a
 * stream already in flight before it exits 0, or cuts it once the grace has passed.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let storage: Awaited<ReturnType<typeof freshStorage>>;
let dataDir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai, slowChunkDelayMs: 30 });
  storage = await freshStorage();
  dataDir = mkdtempSync(join(tmpdir(), 'junction-shutdown-'));
  const { DATABASE_URL: _ignored, ...rest } = process.env;
  env = {
    ...rest,
    ...(storage.databaseUrl && { DATABASE_URL: storage.databaseUrl }),
    PORT: '0',
    LOG_LEVEL: 'info',
    JUNCTION_DATA_DIR: dataDir,
    OPENAI_API_KEY: UPSTREAM_KEYS.openai,
    OPENAI_BASE_URL: upstream.url,
    JUNCTION_CONFIG: TEST_CONFIG,
    JUNCTION_AGENTS_DIR: join(dataDir, 'agents'),
    JUNCTION_TOOLS_DIR: join(dataDir, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(dataDir, 'knowledge'),
  };
});
afterAll(async () => {
  await upstream.close();
  await storage.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const cli = async (...args: string[]) => (await run(process.execPath, [join(ROOT, 'bin/junction.js'), ...args], { env, timeout: 60_000 })).stdout;

/** `npm start` as a child whose stdout is read to its end; resolves with its URL once ready. */
async function startChild(extraEnv: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, SERVER_ARGS, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
  // stdout is read to its end, not just to the ready line: a pipe closed early makes the
  // server's next log line (the drain it logs on SIGTERM) fail with EPIPE.
  const lines = createInterface({ input: child.stdout });
  const logged = (text: string) => new Promise<void>((resolve) => lines.on('line', (line) => line.includes(text) && resolve()));
  const url = await new Promise<string>((resolve) => {
    lines.on('line', (line) => {
      const match = /"url":"(http:[^"]+)"/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { child, url, logged };
}

async function openStream(url: string, key: string, model: string) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'all of it please' }], stream: true }),
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const first = decoder.decode((await reader.read()).value);
  /** The whole body, and whether the connection was cut before the body ended. */
  const rest = async () => {
    let text = first;
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
      return { text, cut: false };
    } catch {
      return { text, cut: true };
    }
  };
  return { rest };
}

describe('SIGTERM', () => {
  it('drains the in-flight stream, then exits 0', async () => {
    const { child, url, logged } = await startChild();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const key = JSON.parse(await cli('keys', 'create', '--kind', 'model', '--name', 'drain', '--json')).key as string;
    await cli('credits', 'grant', '--amount', '5', '--currency', 'USD');

    const stream = await openStream(url, key, 'openai/test-slow');
    const exited = once(child, 'exit');
    // The drain begins only once the server has logged it: the stream is then known to be in flight at SIGTERM.
    const draining = logged('draining in-flight requests');
    child.kill('SIGTERM');
    await draining;
    const { text, cut } = await stream.rest();
    expect(cut).toBe(false);
    const content = [...text.matchAll(/"content":"([^"]*)"/g)].map((match) => match[1]).join('');
    expect(content.endsWith('all of it please')).toBe(true);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const [code] = await exited;
    expect(code).toBe(0);
    // A child process plus two CLI runs: generous on a loaded CI machine.
  }, 90_000);

  it('cuts a stream still open after the grace, bills what it produced, and exits 0', async () => {
    // An upstream whose answer takes over 30 s, the grace 1 s: had the grace not cut the
    // stream, the drain would have waited for the answer and the client got all of it.
    const slowUpstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai, slowChunkDelayMs: 1_000 });
    try {
      const { child, url, logged } = await startChild({ OPENAI_BASE_URL: slowUpstream.url, JUNCTION_SHUTDOWN_GRACE_MS: '1000' });
      const key = JSON.parse(await cli('keys', 'create', '--kind', 'model', '--name', 'grace', '--json')).key as string;
      await cli('credits', 'grant', '--amount', '5', '--currency', 'USD');
      const usageBefore = Number(JSON.parse(await cli('credits', 'show', '--json')).data.total_usage);
      const stream = await openStream(url, key, 'openai/test-slow');
      const exited = once(child, 'exit');
      const cut = logged('shutdown grace ended');
      child.kill('SIGTERM');
      const { text, cut: cutOff } = await stream.rest();
      expect(cutOff).toBe(true);
      expect(text).not.toContain('[DONE]');
      const [code] = await exited;
      expect(code).toBe(0);
      await cut;
      // The cut call was settled before the store closed: its input is billed.
      const usageAfter = Number(JSON.parse(await cli('credits', 'show', '--json')).data.total_usage);
      expect(usageAfter).toBeGreaterThan(usageBefore);
      // The gateway closed its upstream request before the upstream finished its answer.
      expect(slowUpstream.clientDisconnects).toBe(1);
    } finally {
      await slowUpstream.close();
    }
  }, 90_000);
});
