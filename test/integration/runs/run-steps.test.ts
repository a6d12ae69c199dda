import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { sweepRunSteps } from '../../../src/runs/run-retention.ts';
import type { RunLookup, RunView } from '../../../src/console/contract/runs.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { type GatewayHarness, startGateway } from '../../support/gateway-harness.ts';
import { runtimeFolders } from '../../support/runtime-fixtures.ts';
import { bearer } from '../../support/test-app.ts';
import { engineName } from '../../support/test-database.ts';

/** Run pages: an agent run's steps (retrieval, model calls, a tool call) with costs that add up to its usage rows, per account, with or without content. */
const folders = runtimeFolders({
  helper: 'name: Helper\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\nknowledge: [handbook]\nmax_steps: 4\n',
});
mkdirSync(join(folders.root, 'knowledge', 'handbook'));
writeFileSync(join(folders.root, 'knowledge', 'handbook', 'returns.md'), '# Returns\n\nA kettle may be returned within 45 days of delivery for a full refund.\n');

let gateway: GatewayHarness;
let owner: ConsoleSession;
let stranger: ConsoleSession;
let agentKey = '';

beforeAll(async () => {
  gateway = await startGateway(folders.env);
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  const other = (await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'Other' })) as { data: { id: string } };
  await runAdminCommand(gateway.services, { command: 'users.create', account: other.data.id, email: 'stranger@example.com', password: 'stranger password 1', role: 'owner' });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  stranger = await signIn(gateway.app, 'stranger@example.com', 'stranger password 1');
  agentKey = await gateway.key('agent', { name: 'support bot' });
});
afterAll(async () => {
  await gateway?.close();
  folders.remove();
});

async function respond(input: string): Promise<{ id: string; status: string }> {
  const response = await gateway.app.inject({ method: 'POST', url: '/agents/v1/responses', headers: bearer(agentKey), payload: { model: 'helper', input } });
  expect(response.statusCode).toBe(200);
  return response.json();
}

async function runPage(session: ConsoleSession, id: string): Promise<RunView> {
  const page = await session.request('GET', `/console/api/runs/${encodeURIComponent(id)}`);
  expect(page.statusCode).toBe(200);
  const found = page.json<RunLookup>();
  if (found.kind !== 'run') throw new Error(`expected a run page, got ${found.kind}`);
  return found.run;
}

const micros = (usd: number) => Math.round(usd * 1_000_000);

describe(`run pages on ${engineName()}`, () => {
  let firstRun: RunView;

  it("shows an API run's retrieval, model calls and tool call, costing what its usage rows bill", async () => {
    const response = await respond('Can I return a kettle?');
    expect(response.status).toBe('completed');
    const run = await runPage(owner, response.id);
    firstRun = run;
    expect(run).toMatchObject({ response_id: response.id, agent_id: 'helper', key_name: 'support bot', usage_rows: 3 });
    expect(run.agent_version).toEqual(expect.any(String));
    expect(run.steps.map((step) => [step.kind, step.name])).toEqual([
      ['retrieval', 'knowledge'],
      ['model', 'openai/test-tool'],
      ['tool', 'echo_upper'],
      ['model', 'openai/test-tool'],
    ]);
    const [retrieval, firstModel, tool, secondModel] = run.steps;
    expect(tool?.parent_step_id).toBe(firstModel?.id);
    expect(tool?.cost_usd).toBe(0.002);
    expect(tool?.status).toBe('ok');
    expect(tool?.content).toMatchObject({ arguments: { text: 'fake' }, result: 'FAKE' });
    expect((retrieval?.content as { hits: Array<{ source: string; score: number }> }).hits[0]).toMatchObject({ source: expect.stringContaining('returns.md') });
    expect(JSON.stringify((retrieval?.content as { context: string }).context)).toContain('45 days');
    expect(firstModel?.input_tokens).toBeGreaterThan(0);
    expect((firstModel?.content as { messages: Array<{ role: string; text: string }> }).messages.at(-1)).toMatchObject({ role: 'user', text: 'Can I return a kettle?' });
    expect((secondModel?.content as { answer: { text: string } }).answer.text).toContain('Tool echo_upper returned');
    // The steps' costs add up to the bill, to the micro-dollar.
    const stepMicros = run.steps.reduce((sum, step) => sum + micros(step.cost_usd), 0);
    expect(stepMicros).toBe(micros(run.usage_cost_usd));
    const billed = await gateway.services.db.query<{ total: string }>('SELECT sum(cost_micros) AS total FROM usage_log WHERE agent_run_id = $1', [run.run_id]);
    expect(stepMicros).toBe(Number(billed.rows[0]?.total));
    expect(stepMicros).toBeGreaterThan(micros(0.002));
  });

  it('finds the run by its run id and by any of its usage rows; a gateway call has a call page', async () => {
    expect((await runPage(owner, firstRun.run_id)).steps).toHaveLength(4);
    const toolRow = await gateway.services.db.query<{ id: string }>(`SELECT id FROM usage_log WHERE agent_run_id = $1 AND requested_model = 'tool:echo_upper'`, [firstRun.run_id]);
    expect((await runPage(owner, toolRow.rows[0]?.id ?? '')).run_id).toBe(firstRun.run_id);

    const modelKey = await gateway.key('model', { name: 'plain calls' });
    const call = await gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(modelKey),
      payload: { model: 'openai/test-echo', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(call.statusCode).toBe(200);
    const page = (await owner.request('GET', `/console/api/runs/${call.json<{ id: string }>().id}`)).json<RunLookup>();
    expect(page).toMatchObject({ kind: 'call', call: { id: call.json<{ id: string }>().id, key_name: 'plain calls', model: 'openai/test-echo', status: 'success' } });
  });

  it('answers 404 to another account, by response id and run id alike', async () => {
    for (const id of [firstRun.response_id ?? '', firstRun.run_id]) {
      const page = await stranger.request('GET', `/console/api/runs/${id}`);
      expect(page.statusCode).toBe(404);
      expect(page.body).not.toContain('echo_upper');
    }
    expect((await owner.request('GET', '/console/api/runs/run_000000000000000000000000')).statusCode).toBe(404);
  });

  it('keeps metadata only when the account says so, and clears the content it kept', async () => {
    const accountId = gateway.services.defaultAccount.id;
    expect((await owner.request('GET', '/console/api/settings/run-history')).json()).toEqual({ keep: 'content' });
    expect((await owner.request('PUT', '/console/api/settings/run-history', { keep: 'everything' })).statusCode).toBe(400);
    expect((await owner.request('PUT', '/console/api/settings/run-history', { keep: 'metadata' })).json()).toEqual({ keep: 'metadata' });
    const kept = () => gateway.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM run_steps WHERE account_id = $1 AND content IS NOT NULL', [accountId]);
    expect((await kept()).rows[0]?.n).toBe(0);

    const response = await respond('A secret about my kettle: sk-notarealkey1234567890abcdef');
    const run = await runPage(owner, response.id);
    expect(run.steps.map((step) => step.kind)).toEqual(['retrieval', 'model', 'tool', 'model']);
    expect(run.steps.every((step) => step.content === null)).toBe(true);
    expect(run.steps.find((step) => step.kind === 'tool')?.cost_usd).toBe(0.002);
    expect((await kept()).rows[0]?.n).toBe(0);
    const stored = await gateway.services.db.query<{ text: string }>("SELECT string_agg(coalesce(content::text, ''), '') AS text FROM run_steps WHERE run_id = $1", [run.run_id]);
    expect(stored.rows[0]?.text ?? '').not.toContain('kettle');
    await owner.request('PUT', '/console/api/settings/run-history', { keep: 'content' });
  });

  it('cuts long texts with a marker and keeps no key-shaped secrets', async () => {
    const response = await respond(`My key is sk-jn-abcdefghijklmnopqrstuvwxyz123456 and ${'x'.repeat(20_000)}`);
    const run = await runPage(owner, response.id);
    const prompt = JSON.stringify(run.steps.find((step) => step.kind === 'model')?.content);
    expect(prompt).toContain('[cut: ');
    expect(prompt).toContain('[redacted]');
    expect(prompt).not.toContain('abcdefghijklmnopqrstuvwxyz123456');
  });

  it('sweeps steps older than the retention, in batches, and only those', async () => {
    const { db } = gateway.services;
    const before = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM run_steps');
    const total = before.rows[0]?.n ?? 0;
    await db.query(`UPDATE run_steps SET started_at = started_at - interval '40 days', ended_at = ended_at - interval '40 days' WHERE run_id = $1`, [firstRun.run_id]);
    const deleted = await sweepRunSteps({ db, days: 30, now: () => new Date() });
    expect(deleted).toBe(4);
    const after = await db.query<{ run_id: string }>('SELECT DISTINCT run_id FROM run_steps');
    expect(after.rows.map((row) => row.run_id)).not.toContain(firstRun.run_id);
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM run_steps')).rows[0]?.n).toBe(total - 4);
    // Its usage rows stay: the page still answers, with the bill and no steps.
    const page = await runPage(owner, firstRun.run_id);
    expect(page).toMatchObject({ usage_rows: 3, steps: [] });
  });
});
