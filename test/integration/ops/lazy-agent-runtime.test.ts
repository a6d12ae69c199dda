import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIUpstream } from '../../support/fake-openai-upstream.ts';
import { UPSTREAM_KEYS } from '../../support/gateway-harness.ts';
import { runtimeFolders } from '../../support/runtime-fixtures.ts';

/**
 * Start-up does not wait for the agent runtime: LangGraph, LangChain core, the MCP SDK
 * and the tracing SDK are loaded only when an agent first runs (or tracing is enabled);
 * the tokenizer (about 10 MB of rank tables), the HTML parser and mathjs only when a
 * count, an HTML document or a calculation first needs them.
 * The server runs as `npm start` runs it (the compiled build/, made fresh first), with a
 * loader hook that records every module; its TypeScript tool files still load.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../../..');
const RECORDER = join(ROOT, 'test/fixtures/module-recorder/register.mjs');
const HEAVY = /node_modules\/(@langchain\/|langsmith\/|@modelcontextprotocol\/|@opentelemetry\/sdk-trace-base\/|js-tiktoken\/|html-to-text\/|mathjs\/)/;
// echo_upper is a TypeScript tool file: the compiled server must load it through tsx's loader.
const folders = runtimeFolders({ helper: 'name: Helper\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\n' });
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let dataDir: string;
let server: ChildProcess | undefined;

beforeAll(async () => {
  await run(process.execPath, [join(ROOT, 'scripts/ensure-build.mjs')], { cwd: ROOT, timeout: 120_000 });
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai });
  dataDir = mkdtempSync(join(tmpdir(), 'junction-lazy-'));
});
afterAll(async () => {
  if (server?.exitCode === null) server.kill('SIGKILL');
  await upstream.close();
  rmSync(dataDir, { recursive: true, force: true });
  folders.remove();
});

const heavyModules = (log: string) =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => HEAVY.test(url));

describe('agent runtime loading', () => {
  it('is not loaded at start-up, and is loaded by the first agent run, which answers and can use a TypeScript tool file', async () => {
    const moduleLog = join(dataDir, 'modules.log');
    // Embedded store: the case with the slowest start; DATABASE_URL does not change what is imported.
    const { DATABASE_URL: _ignored, ...rest } = process.env;
    const env = {
      ...rest,
      ...folders.env,
      PORT: '0',
      JUNCTION_DATA_DIR: join(dataDir, 'store'),
      OPENAI_API_KEY: UPSTREAM_KEYS.openai,
      OPENAI_BASE_URL: upstream.url,
      JUNCTION_TEST_MODULE_LOG: moduleLog,
    };
    server = spawn(process.execPath, ['--import', RECORDER, join(ROOT, 'build/main.js')], { env, stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
    let url: string | undefined;
    for await (const line of createInterface({ input: server.stdout as NodeJS.ReadableStream })) {
      url = /"msg":"junction is ready"/.test(line) ? /"url":"(http:[^"]+)"/.exec(line)?.[1] : undefined;
      if (url) break;
    }
    expect(url, 'the server became ready').toBeDefined();
    expect(readFileSync(moduleLog, 'utf8')).toContain('/build/main.js');
    expect(heavyModules(moduleLog)).toEqual([]);

    const cli = async (...args: string[]) => (await run(process.execPath, [join(ROOT, 'bin/junction.js'), ...args], { env, timeout: 60_000 })).stdout;
    const key = JSON.parse(await cli('keys', 'create', '--kind', 'agent', '--name', 'lazy', '--json')).key as string;
    await cli('credits', 'grant', '--amount', '5', '--currency', 'USD');
    const answer = await fetch(`${url}/agents/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'helper', messages: [{ role: 'user', content: 'hello lazy runtime' }] }),
    });
    expect(answer.status, await answer.clone().text()).toBe(200);
    const body = (await answer.json()) as { choices: Array<{ message: { content: string } }> };
    // The fake model calls the tool, then quotes its result: capitals prove the tool ran.
    const [, toolResult] = /^Tool echo_upper returned: (.+)$/.exec(body.choices[0]?.message.content ?? '') ?? [];
    expect(toolResult).toBeDefined();
    expect(toolResult).toBe(toolResult?.toUpperCase());
    expect(toolResult).toMatch(/[A-Z]/);
    expect(heavyModules(moduleLog).some((module) => module.includes('@langchain/langgraph/'))).toBe(true);
  });
});
