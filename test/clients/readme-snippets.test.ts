import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * Every ```js block of the README (and the tool-step client of docs/responses.md) runs as
 * written, as an ES module in a child `node`, against a real Junction on 127.0.0.1 with
 * fake upstreams and the repository's own agents/, tools/ and knowledge/. The only
 * changes: the README's port becomes the test server's, and SK / AK hold real keys.
 */
const ROOT = join(import.meta.dirname, '../..');
const README_ORIGIN = 'http://127.0.0.1:8080';

type Snippet = { source: string; name: string; firstLine: string; code: string };

function jsBlocks(file: string): Snippet[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((match, index) => {
    const code = match[1] ?? '';
    const firstLine = code.split('\n')[0] ?? '';
    return { source: file, name: `${file} js block ${index + 1}: ${firstLine}`, firstLine, code };
  });
}

type Outcome = { exitCode: number | null; stdout: string; stderr: string };

/** Runs the code as `node --input-type=module` from the checkout, so `import 'openai'` resolves as it does for a reader. */
function runModule(code: string, env: Record<string, string>, args: string[] = []): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr });
    });
    child.stdin.end(code);
  });
}

const upstreamCalls = (gateway: GatewayHarness) => gateway.openai.requests.length + gateway.anthropic.requests.length + gateway.gemini.requests.length;

let gateway: GatewayHarness;
let env: Record<string, string>;

beforeAll(async () => {
  gateway = await startGateway({
    JUNCTION_AGENTS_DIR: join(ROOT, 'agents'),
    JUNCTION_TOOLS_DIR: join(ROOT, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(ROOT, 'knowledge'),
  });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  const agentKey = await gateway.key('agent');
  env = { SK: await gateway.key('model'), AK: agentKey, JUNCTION_AGENT_KEY: agentKey };
});
afterAll(async () => gateway?.close());

const readmeSnippets = jsBlocks('README.md');

describe('the README client snippets, run as written', () => {
  it('finds the client snippets', () => {
    expect(readmeSnippets.length).toBeGreaterThanOrEqual(3);
  });

  it.each(readmeSnippets.map((snippet) => [snippet.name, snippet] as const))('%s', async (_name, snippet) => {
    expect(snippet.code, 'the snippet names the README port').toContain(README_ORIGIN);
    const before = upstreamCalls(gateway);
    const outcome = await runModule(snippet.code.replaceAll(README_ORIGIN, gateway.baseUrl), env);
    const failure = `${snippet.source} snippet starting "${snippet.firstLine}" failed:\n${outcome.stderr}`;
    expect(outcome.exitCode, failure).toBe(0);
    expect(outcome.stderr, failure).toBe('');
    expect(upstreamCalls(gateway), `${snippet.source} snippet starting "${snippet.firstLine}" reached no provider`).toBeGreaterThan(before);
  });
});

describe('docs/responses.md: a client that renders tool steps', () => {
  it('streams the support agent and prints its answer and usage', async () => {
    const [client] = jsBlocks('docs/responses.md');
    expect(client?.firstLine).toBe("import OpenAI from 'openai';");
    const code = (client?.code ?? '').replaceAll(README_ORIGIN, gateway.baseUrl);
    const outcome = await runModule(code, env, ['support', 'How long do refunds take?']);
    expect(outcome.exitCode, outcome.stderr).toBe(0);
    expect(outcome.stderr).toBe('');
    // The fake upstream echoes the question; the usage line prints tokens and a cost.
    expect(outcome.stdout).toContain('[answer] How long do refunds take?');
    expect(outcome.stdout).toMatch(/\ncompleted, \d+ tokens, \$\d/);
  });
});
