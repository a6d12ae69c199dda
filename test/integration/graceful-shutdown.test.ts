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
import { freshStorage } from '../support/test-database.ts';

/**
 * `npm start` as a real process: ready on /healthz, and on SIGTERM it finishes a
 * stream already in flight before it exits 0.
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

describe('SIGTERM', () => {
  it('drains the in-flight stream, then exits 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], { env, stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
    // stdout is read to its end, not just to the ready line: a pipe closed early makes the
    // server's next log line (the drain it logs on SIGTERM) fail with EPIPE.
    const lines = createInterface({ input: child.stdout });
    const url = await new Promise<string>((resolve) => {
      lines.on('line', (line) => {
        const match = /"url":"(http:[^"]+)"/.exec(line);
        if (match?.[1]) resolve(match[1]);
      });
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const key = JSON.parse(await cli('keys', 'create', '--kind', 'model', '--name', 'drain', '--json')).key as string;
    await cli('credits', 'grant', '--amount', '5', '--currency', 'USD');

    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/test-slow', messages: [{ role: 'user', content: 'all of it please' }], stream: true }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    const exited = once(child, 'exit');
    // The drain begins only once the server has logged it: the stream is then known to be in flight at SIGTERM.
    const draining = new Promise<void>((resolve) => lines.on('line', (line) => line.includes('draining in-flight requests') && resolve()));
    child.kill('SIGTERM');
    await draining;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    const content = [...text.matchAll(/"content":"([^"]*)"/g)].map((match) => match[1]).join('');
    expect(content.endsWith('all of it please')).toBe(true);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const [code] = await exited;
    expect(code).toBe(0);
    // A child process plus two CLI runs: generous on a loaded CI machine.
  }, 90_000);
});
