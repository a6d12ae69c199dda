import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { createDatasetRepository } from '../../../src/evaluation/dataset-repository.ts';
import { type GatewayHarness, startGateway } from '../../support/gateway-harness.ts';

/**
 * `npx junction eval run --url` as a CI runner without the store uses it: the evaluation
 * runs on the server, started with the agent key in JUNCTION_AGENT_KEY; the exit code is
 * the same gate as in-process.
 */
const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../../bin/junction.js');
let gateway: GatewayHarness;
let agentKey: string;

beforeAll(async () => {
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  const { services } = gateway;
  const accountId = services.defaultAccount.id;
  await runAdminCommand(services, { command: 'credits.grant', amount: '5', currency: 'USD' });
  await runAdminCommand(services, { command: 'users.create', email: 'ci@example.com', password: 'ci password 123', role: 'owner' });
  const user = await services.db.query<{ id: string }>('SELECT id FROM users WHERE email = $1', ['ci@example.com']);
  const author = { userId: user.rows[0]?.id ?? '', email: 'ci@example.com' };
  const store = services.agentDirectory?.consoleAgents;
  if (!store) throw new Error('no console agents');
  // Published v1 echoes the question; the draft v2 answers with its first word only.
  const agent = { name: 'Support', model: 'openai/test-echo', instructions: 'Answer.' };
  await store.save(accountId, 'support', agent, author, null);
  await store.save(accountId, 'support', { ...agent, max_output_tokens: 1 }, author, null);
  const datasets = createDatasetRepository(services.db);
  const refunds = await datasets.create(accountId, { name: 'refunds' });
  await datasets.addCases(accountId, refunds.id, [
    { input: 'refund please', expect: { must_contain: ['refund'] } },
    { input: 'where is my order', expect: { must_contain: ['order'] } },
    { input: 'cancel my plan', expect: { must_contain: ['cancel'] } },
  ]);
  agentKey = await gateway.key('agent', { name: 'ci' });
}, 60_000);
afterAll(async () => gateway?.close());

async function evalRun(key: string | undefined, ...args: string[]): Promise<{ code: number; stdout: string }> {
  const { DATABASE_URL: _database, JUNCTION_AGENT_KEY: _key, ...inherited } = process.env;
  const env = { ...inherited, LOG_LEVEL: 'silent', ...(key && { JUNCTION_AGENT_KEY: key }) };
  try {
    const result = await run(process.execPath, [BIN, 'eval', 'run', '--agent', 'support', '--dataset', 'refunds', '--url', gateway.baseUrl, ...args], { env, timeout: 120_000 });
    return { code: 0, stdout: result.stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('npx junction eval run --url', () => {
  it('runs on the server with the agent key and gates on the mean score', async () => {
    const below = await evalRun(agentKey, '--fail-below', '0.9');
    expect(below.code, below.stdout).toBe(1);
    expect(below.stdout).toContain('FAIL: the mean score 0.667 is below 0.9');
    const compared = await evalRun(agentKey, '--baseline', 'published', '--json');
    expect(compared.code, compared.stdout).toBe(0);
    expect(JSON.parse(compared.stdout)).toMatchObject({ passed: true, evaluation: { agent_version: 'v2', created_by: 'key ci' }, experiment: { regressions: 1, regressed: false } });
  }, 120_000);

  it('needs the key in the environment, and a key the server knows', async () => {
    const missing = await evalRun(undefined);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('--url needs an agent key in JUNCTION_AGENT_KEY');
    const wrong = await evalRun('sk-jn-not-a-key');
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('401 from /evaluations');
  }, 120_000);
});
