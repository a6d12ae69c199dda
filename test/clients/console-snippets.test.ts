import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { snippetsFor } from '../../web/src/routes/overview/snippets.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * The console's ready-made first calls (the Overview's checklist and a new key's notice)
 * run as the console fills them in: the JavaScript ones as ES modules in a child `node`
 * from the checkout, the curl one in a shell, each answering through Junction.
 */
const ROOT = join(import.meta.dirname, '../..');
let gateway: GatewayHarness;
let key = '';

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  key = await gateway.key('model');
});
afterAll(async () => gateway?.close());

type Outcome = { exitCode: number | null; stdout: string; stderr: string };

function run(command: string, args: string[], input: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, stdio: ['pipe', 'pipe', 'pipe'] });
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
    child.stdin.end(input);
  });
}

describe('the console’s first-call snippets, run as the console fills them in', () => {
  it('offers curl and the five clients', () => {
    expect(snippetsFor({ baseUrl: 'http://x', apiKey: 'k', model: 'm' }).map((snippet) => snippet.label)).toEqual(['curl', 'OpenAI SDK', 'Anthropic SDK', 'Gemini SDK', 'LangChain', 'AI SDK']);
  });

  it.each(['curl', 'openai', 'anthropic', 'gemini', 'langchain', 'ai-sdk'])('%s answers through Junction', async (id) => {
    const snippet = snippetsFor({ baseUrl: gateway.baseUrl, apiKey: key, model: 'openai/test-echo' }).find((entry) => entry.id === id);
    if (!snippet) throw new Error(`no ${id} snippet`);
    const before = gateway.openai.requests.length;
    const outcome = id === 'curl' ? await run('sh', ['-s'], snippet.code) : await run(process.execPath, ['--input-type=module', '-'], snippet.code);
    expect(outcome.exitCode, `${id} failed:\n${outcome.stderr}`).toBe(0);
    expect(outcome.stdout).toContain('Hello');
    expect(gateway.openai.requests.length).toBeGreaterThan(before);
  });
});
