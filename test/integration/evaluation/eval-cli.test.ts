import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { createServices } from '../../../src/assembly/services.ts';
import { readEnvConfig } from '../../../src/config/env-config.ts';
import { createDatasetRepository } from '../../../src/evaluation/dataset-repository.ts';
import { startFakeOpenAIUpstream } from '../../support/fake-openai-upstream.ts';
import { TEST_CONFIG, UPSTREAM_KEYS } from '../../support/gateway-harness.ts';
import { freshStorage } from '../../support/test-database.ts';

/**
 * `npx junction eval run` as CI runs it: the compiled CLI on the store, each case a billed
 * agent run against the fake upstream, the exit code the gate (0 passes, 1 fails).
 */
const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../../bin/junction.js');

let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let dataDir: string;
let drop: () => Promise<void>;
let env: Record<string, string>;

beforeAll(async () => {
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai });
  dataDir = mkdtempSync(join(tmpdir(), 'junction-eval-cli-'));
  const storage = await freshStorage();
  drop = storage.drop;
  env = {
    LOG_LEVEL: 'silent',
    JUNCTION_DATA_DIR: dataDir,
    ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : {}),
    OPENAI_API_KEY: UPSTREAM_KEYS.openai,
    OPENAI_BASE_URL: upstream.url,
    JUNCTION_CONFIG: TEST_CONFIG,
    JUNCTION_AGENTS_DIR: '/nonexistent',
    JUNCTION_KNOWLEDGE_DIR: '/nonexistent',
  };
  const services = await createServices(readEnvConfig(env), { env, registerProcess: false });
  try {
    const accountId = services.defaultAccount.id;
    await runAdminCommand(services, { command: 'credits.grant', amount: '5', currency: 'USD' });
    const store = services.agentDirectory?.consoleAgents;
    if (!store) throw new Error('no console agents');
    await runAdminCommand(services, { command: 'users.create', email: 'ci@example.com', password: 'ci password 123', role: 'owner' });
    const user = await services.db.query<{ id: string }>('SELECT id FROM users WHERE email = $1', ['ci@example.com']);
    const author = { userId: user.rows[0]?.id ?? '', email: 'ci@example.com' };
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
    // Every case of this dataset loses its word in the draft's one-word answers.
    const orders = await datasets.create(accountId, { name: 'orders' });
    await datasets.addCases(
      accountId,
      orders.id,
      ['where is my order', 'track my order', 'cancel the order'].map((input) => ({ input, expect: { must_contain: ['order'] } })),
    );
  } finally {
    await services.close();
  }
}, 120_000);

afterAll(async () => {
  await upstream.close();
  await drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function evalRun(...args: string[]): Promise<{ code: number; stdout: string }> {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  try {
    const result = await run(process.execPath, [BIN, 'eval', 'run', '--agent', 'support', ...args], { env: { ...inherited, ...env }, timeout: 120_000 });
    return { code: 0, stdout: result.stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('npx junction eval run', () => {
  it('exits 0 when the mean score reaches --fail-below, with the report as JSON', async () => {
    const { code, stdout } = await evalRun('--dataset', 'refunds', '--version', 'published', '--fail-below', '0.8', '--json');
    expect(code, stdout).toBe(0);
    const report = JSON.parse(stdout) as { passed: boolean; evaluation: { mean_score: number; results: Array<{ answer: string }>; agent_version: string } };
    expect(report).toMatchObject({ passed: true, evaluation: { mean_score: 1, agent_version: 'v1' } });
    expect(report.evaluation.results.map((result) => result.answer)).toEqual(['refund please', 'where is my order', 'cancel my plan']);
  }, 120_000);

  it('exits 1 when the draft’s mean score is below --fail-below, and says why in its table', async () => {
    const { code, stdout } = await evalRun('--dataset', 'refunds', '--fail-below', '0.9');
    expect(code).toBe(1);
    expect(stdout).toContain('FAIL: the mean score 0.667 is below 0.9');
    expect(stdout).toMatch(/where is my order +0.00 /);
  }, 120_000);

  it('exits 0 for one regression within the interval, 1 when the draft regresses beyond it', async () => {
    const within = await evalRun('--dataset', 'refunds', '--baseline', 'published');
    expect(within.code, within.stdout).toBe(0);
    expect(within.stdout).toMatch(/REGRESSION where/);
    const beyond = await evalRun('--dataset', 'orders', '--baseline', 'published', '--json');
    expect(beyond.code).toBe(1);
    const report = JSON.parse(beyond.stdout) as { passed: boolean; reasons: string[]; experiment: { regressions: number; regressed: boolean } };
    expect(report).toMatchObject({ passed: false, experiment: { regressions: 3, regressed: true } });
    expect(report.reasons[0]).toContain('beyond the 95% interval');
  }, 240_000);

  it('exits 1 naming an agent version that does not exist', async () => {
    const { code, stdout } = await evalRun('--dataset', 'refunds', '--version', '7');
    expect(code).toBe(1);
    expect(stdout).toContain("No agent 'support' with a version '7'");
  }, 120_000);
});
