import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import type { EvaluationDetail, ExperimentView } from '../../../src/console/contract/evaluations.ts';
import { createDatasetRepository } from '../../../src/evaluation/dataset-repository.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { type GatewayHarness, startGateway } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';

/**
 * Evaluations through the console API: each case a real agent run against the fake
 * upstream, billed and logged as evaluation traffic, scored (a model judge included),
 * bounded by a cost ceiling; experiments with regressions first; other accounts see nothing.
 */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let member: ConsoleSession;
let stranger: ConsoleSession;

const CASES = [
  { input: 'refund please', expect: { must_contain: ['refund'] } },
  { input: 'where is my order', expect: { must_contain: ['order'] } },
  { input: 'cancel my plan', expect: { must_contain: ['cancel'] } },
];

beforeAll(async () => {
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  const services = gateway.services;
  await runAdminCommand(services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  await runAdminCommand(services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  await runAdminCommand(services, { command: 'users.create', email: 'member@example.com', password: 'member password 1', role: 'member' });
  const other = (await runAdminCommand(services, { command: 'accounts.create', name: 'stranger' })) as { data: { id: string } };
  await runAdminCommand(services, { command: 'users.create', email: 'stranger@example.com', password: 'stranger password 1', role: 'owner', account: other.data.id });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  member = await signIn(gateway.app, 'member@example.com', 'member password 1');
  stranger = await signIn(gateway.app, 'stranger@example.com', 'stranger password 1');

  // Published v1 echoes the question; the draft v2 answers with its first word only.
  const agent = { name: 'Support', model: 'openai/test-echo', instructions: 'Answer the customer.' };
  expect((await owner.request('PUT', '/console/api/agents/support', { definition: agent })).json()).toMatchObject({ version: 1, published: true });
  expect((await owner.request('PUT', '/console/api/agents/support', { definition: { ...agent, max_output_tokens: 1 } })).json()).toMatchObject({ version: 2, published: false });
  const graded = { ...agent, name: 'Graded', scorers: [{ type: 'contains', name: 'mentions-order', value: 'order' }] };
  expect((await owner.request('PUT', '/console/api/agents/graded', { definition: graded })).json()).toMatchObject({ version: 1 });

  expect((await owner.request('PUT', '/console/api/agents/slow', { definition: { ...agent, name: 'Slow', model: 'openai/test-slow' } })).json()).toMatchObject({ version: 1 });
  const calculating = { name: 'Calculating', model: 'openai/test-tool', instructions: 'Use the calculator.', tools: ['calculator'] };
  expect((await owner.request('PUT', '/console/api/agents/calculating', { definition: calculating })).json()).toMatchObject({ version: 1 });

  const datasets = createDatasetRepository(services.db);
  const dataset = await datasets.create(services.defaultAccount.id, { name: 'refunds' });
  await datasets.addCases(services.defaultAccount.id, dataset.id, CASES);
  const tools = await datasets.create(services.defaultAccount.id, { name: 'tools' });
  await datasets.addCases(services.defaultAccount.id, tools.id, [
    { input: 'compute it', expect: { tool_calls: [{ name: 'calculator', arguments: { expression: 'fake' } }] } },
    { input: 'compute again', expect: { tool_calls: [{ name: 'calculator', arguments: { expression: 'other' } }, { name: 'http_fetch' }] } },
  ]);
}, 60_000);
afterAll(async () => gateway?.close());

async function ended<T extends { status: string }>(url: string, session = owner): Promise<T> {
  for (;;) {
    const body = (await session.request('GET', url)).json<T>();
    if (body.status !== 'running') return body;
    await sleep(20);
  }
}

const startEvaluation = async (body: Record<string, unknown>) => {
  const started = await owner.request('POST', '/console/api/evaluations', { agent: 'support', dataset: 'refunds', ...body });
  expect(started.statusCode, started.body).toBe(202);
  return ended<EvaluationDetail>(`/console/api/evaluations/${started.json<{ id: string }>().id}`);
};

describe('an evaluation', () => {
  it('runs every case through the agent, billed as evaluation traffic, with scores and a judge stored', async () => {
    const scorers = [{ type: 'contains' }, { type: 'judge', rubric: 'The answer mentions "refund".', model: 'openai/test-judge' }];
    const evaluation = await startEvaluation({ version: 'published', scorers });
    expect(evaluation).toMatchObject({ status: 'completed', agent: 'support', version: 'published', agent_version: 'v1', cases: 3, cases_done: 3, dataset: { name: 'refunds' } });
    expect(evaluation.results.map((result) => [result.answer, result.status, result.scores.map((score) => score.score)])).toEqual([
      ['refund please', 'completed', [1, 1]],
      ['where is my order', 'completed', [1, 0]],
      ['cancel my plan', 'completed', [1, 0]],
    ]);
    expect(evaluation.results[1]?.scores[1]?.reason).toBe('Mentions 0 of 1 words the rubric names; missing: refund.');
    expect(evaluation.mean_score).toBeCloseTo(2 / 3);
    expect(evaluation.scorer_summary).toEqual([
      { scorer: 'contains', mean: 1, scored: 3, errors: 0 },
      { scorer: 'judge', mean: 1 / 3, scored: 3, errors: 0 },
    ]);

    // Every model call is in the usage log under the evaluation's id, apart from callers' traffic.
    await gateway.settle();
    const rows = await gateway.services.db.query<{ endpoint: string; agent_run_id: string | null; cost_micros: string | number; requested_model: string }>(
      'SELECT endpoint, agent_run_id, cost_micros, requested_model FROM usage_log WHERE request_id = $1 ORDER BY endpoint, agent_run_id',
      [evaluation.id],
    );
    const runIds = evaluation.results.map((result) => result.run_id);
    expect(rows.rows.filter((row) => row.endpoint === 'agents.evaluation').map((row) => row.agent_run_id)).toEqual([...runIds].sort());
    expect(rows.rows.filter((row) => row.endpoint === 'agents.evaluation.judge').map((row) => row.requested_model)).toEqual(Array(3).fill('openai/test-judge'));
    const billed = rows.rows.reduce((sum, row) => sum + Number(row.cost_micros), 0);
    expect(billed).toBeGreaterThan(0);
    expect(Math.round(evaluation.cost_usd * 1_000_000)).toBe(billed);
    // Each case's run has its run page.
    const runPage = await owner.request('GET', `/console/api/runs/${runIds[0]}`);
    expect(runPage.json()).toMatchObject({ kind: 'run', run: { run_id: runIds[0], agent_id: 'support' } });
    // The judge read the whole run in the fake's tags, the user's question among it.
    const judgeRequest = gateway.openai.requests.find((request) => (request.body as { model?: string }).model === 'test-judge');
    expect(JSON.stringify(judgeRequest?.body)).toContain('<run>');
  });

  it('scores the tool calls of the run’s steps, and the judge reads them', async () => {
    const started = await owner.request('POST', '/console/api/evaluations', {
      agent: 'calculating',
      dataset: 'tools',
      scorers: [{ type: 'tool_calls' }, { type: 'judge', rubric: 'Uses the "calculator".', model: 'openai/test-judge' }],
    });
    const evaluation = await ended<EvaluationDetail>(`/console/api/evaluations/${started.json<{ id: string }>().id}`);
    expect(evaluation.results.map((result) => result.scores.map((score) => score.score))).toEqual([
      [1, 1],
      [0, 1],
    ]);
    expect(evaluation.results[1]?.scores[0]?.reason).toBe('calculator was called with other arguments: {"expression":"fake"}; no call of http_fetch (called calculator)');
    const judged = gateway.openai.requests.filter((request) => (request.body as { model?: string }).model === 'test-judge').at(-1);
    // The line as the judge's JSON body carries it (quotes escaped).
    expect(JSON.stringify(judged?.body)).toContain(JSON.stringify('[tool call] calculator({"expression":"fake"})').slice(1, -1));
  });

  it('keeps going when the judge answers out of format: the scorer errs on each case', async () => {
    const evaluation = await startEvaluation({ version: 'published', scorers: [{ type: 'judge', rubric: 'Polite.', model: 'openai/test-judge-malformed' }] });
    expect(evaluation.status).toBe('completed');
    expect(evaluation.results.map((result) => result.scores[0])).toEqual(Array(3).fill(expect.objectContaining({ scorer: 'judge', score: null, error: 'judge_malformed' })));
    expect(evaluation.scorer_summary).toEqual([{ scorer: 'judge', mean: null, scored: 0, errors: 3 }]);
  });

  it('uses the scorers declared beside the agent when the request names none', async () => {
    const started = await owner.request('POST', '/console/api/evaluations', { agent: 'graded', dataset: 'refunds' });
    const evaluation = await ended<EvaluationDetail>(`/console/api/evaluations/${started.json<{ id: string }>().id}`);
    expect(evaluation.scorers).toEqual([{ type: 'contains', name: 'mentions-order', value: 'order' }]);
    expect(evaluation.results.map((result) => result.score)).toEqual([0, 1, 0]);
  });

  it('stops starting cases once the next could pass the cost ceiling, and says so', async () => {
    const evaluation = await startEvaluation({ version: 'published', concurrency: 1, max_cost_usd: 0.000001 });
    expect(evaluation).toMatchObject({ status: 'stopped', stop_reason: 'max_cost_usd', cases_done: 3 });
    expect(evaluation.results.map((result) => result.status)).toEqual(['completed', 'skipped', 'skipped']);
    expect(evaluation.results[1]?.run_id).toBeNull();
  });

  it('is cancelled by an admin: its run in flight aborted, no further case started', async () => {
    const started = await owner.request('POST', '/console/api/evaluations', { agent: 'slow', dataset: 'refunds', concurrency: 1 });
    const id = started.json<{ id: string }>().id;
    expect((await member.request('POST', `/console/api/evaluations/${id}/cancel`)).statusCode).toBe(403);
    expect((await stranger.request('POST', `/console/api/evaluations/${id}/cancel`)).statusCode).toBe(404);
    const cancelled = (await owner.request('POST', `/console/api/evaluations/${id}/cancel`)).json<EvaluationDetail>();
    expect(cancelled).toMatchObject({ status: 'stopped', stop_reason: 'cancelled' });
    expect(cancelled.results.length).toBeLessThanOrEqual(1);
    expect(cancelled.results.every((result) => result.status === 'failed')).toBe(true);
    // Cancelling again, or an evaluation that has ended, answers it as it is.
    expect((await owner.request('POST', `/console/api/evaluations/${id}/cancel`)).json()).toMatchObject({ status: 'stopped', cases_done: cancelled.cases_done });
  });

  it('refuses an unknown version, dataset or scorer with 404 and 400', async () => {
    expect((await owner.request('POST', '/console/api/evaluations', { agent: 'support', dataset: 'refunds', version: '9' })).json()).toMatchObject({ error: { code: 'not_found', param: 'agent' } });
    expect((await owner.request('POST', '/console/api/evaluations', { agent: 'support', dataset: 'nope' })).json()).toMatchObject({ error: { code: 'not_found', param: 'dataset' } });
    const badScorer = await owner.request('POST', '/console/api/evaluations', { agent: 'support', dataset: 'refunds', scorers: [{ type: 'regex', pattern: '(' }] });
    expect(badScorer.statusCode).toBe(400);
    expect(badScorer.json()).toMatchObject({ error: { param: 'scorers' } });
  });
});

describe('an experiment', () => {
  it('compares the draft with the published version case by case, the regression first', async () => {
    const started = await owner.request('POST', '/console/api/experiments', {
      agent: 'support',
      dataset: 'refunds',
      baseline: { version: 'published' },
      candidate: { version: 'draft' },
      scorers: [{ type: 'contains' }],
    });
    expect(started.statusCode, started.body).toBe(202);
    const experiment = await ended<ExperimentView>(`/console/api/experiments/${started.json<{ id: string }>().id}`);
    expect(experiment).toMatchObject({ status: 'completed', regressions: 1, baseline: { agent_version: 'v1' }, candidate: { agent_version: 'v2' } });
    expect(experiment.cases.map((entry) => [entry.baseline?.answer, entry.candidate?.answer, entry.delta, entry.regression])).toEqual([
      ['where is my order', 'where', -1, true],
      ['refund please', 'refund', 0, false],
      ['cancel my plan', 'cancel', 0, false],
    ]);
    expect(experiment.cases[0]?.diff).toEqual([
      { kind: 'removed', text: 'where is my order' },
      { kind: 'added', text: 'where' },
    ]);
    expect(experiment.overall.baseline.mean).toBe(1);
    expect(experiment.overall.candidate.mean).toBeCloseTo(2 / 3);
    expect(experiment.overall.difference.low).toBeLessThanOrEqual(experiment.overall.difference.mean ?? 0);
    expect(experiment.scorers.map((entry) => entry.scorer)).toEqual(['contains']);

    // A finished evaluation is reused as a side.
    const reused = await owner.request('POST', '/console/api/experiments', {
      agent: 'support',
      dataset: 'refunds',
      baseline: { evaluation_id: experiment.baseline.id },
      candidate: { evaluation_id: experiment.candidate.id },
    });
    expect(reused.json<ExperimentView>()).toMatchObject({ status: 'completed', regressions: 1, baseline: { id: experiment.baseline.id } });
    // A side that cannot run refuses the experiment before the other side starts.
    const before = (await owner.request('GET', '/console/api/evaluations')).json<{ data: unknown[] }>().data.length;
    const refused = await owner.request('POST', '/console/api/experiments', { agent: 'support', dataset: 'refunds', candidate: { version: '9' } });
    expect(refused.json()).toMatchObject({ error: { code: 'not_found', param: 'agent' } });
    const otherDataset = await owner.request('POST', '/console/api/experiments', { agent: 'support', dataset: 'tools', baseline: { evaluation_id: experiment.baseline.id } });
    expect(otherDataset.json()).toMatchObject({ error: { code: 'invalid_request', param: 'baseline' } });
    expect((await owner.request('GET', '/console/api/evaluations')).json<{ data: unknown[] }>().data).toHaveLength(before);
    const list = (await member.request('GET', '/console/api/experiments')).json<{ data: Array<{ id: string }> }>();
    expect(list.data.map((entry) => entry.id)).toContain(experiment.id);
  });
});

describe('who may start and read', () => {
  it('lets members read and not start; another account gets 404 for every object', async () => {
    const evaluation = await startEvaluation({ version: 'published' });
    expect((await member.request('POST', '/console/api/evaluations', { agent: 'support', dataset: 'refunds' })).statusCode).toBe(403);
    expect((await member.request('GET', `/console/api/evaluations/${evaluation.id}`)).statusCode).toBe(200);
    expect((await member.request('GET', '/console/api/evaluations?agent=support')).json<{ data: Array<{ id: string }> }>().data.map((entry) => entry.id)).toContain(evaluation.id);

    expect((await stranger.request('GET', `/console/api/evaluations/${evaluation.id}`)).statusCode).toBe(404);
    expect((await stranger.request('GET', '/console/api/evaluations')).json()).toEqual({ data: [] });
    expect((await stranger.request('POST', '/console/api/evaluations', { agent: 'support', dataset: 'refunds' })).json()).toMatchObject({ error: { code: 'not_found' } });
    expect((await stranger.request('POST', '/console/api/experiments', { agent: 'support', dataset: 'refunds', baseline: { evaluation_id: evaluation.id } })).statusCode).toBe(404);
    const experiments = (await owner.request('GET', '/console/api/experiments')).json<{ data: Array<{ id: string }> }>();
    const firstExperiment = experiments.data[0]?.id ?? 'exp_missing';
    expect((await stranger.request('GET', `/console/api/experiments/${firstExperiment}`)).statusCode).toBe(404);
  });
});

describe('the Agents API, for CI with an agent key', () => {
  it('starts an evaluation billed to the key and reads it; other keys and accounts are refused', async () => {
    const key = await gateway.key('agent', { name: 'ci' });
    const started = await gateway.app.inject({ method: 'POST', url: '/agents/v1/evaluations', headers: bearer(key), payload: { agent: 'support', dataset: 'refunds', version: 'draft' } });
    expect(started.statusCode, started.body).toBe(202);
    const id = started.json<{ id: string }>().id;
    let evaluation = started.json<EvaluationDetail>();
    while (evaluation.status === 'running') {
      await sleep(20);
      evaluation = (await gateway.app.inject({ url: `/agents/v1/evaluations/${id}`, headers: bearer(key) })).json<EvaluationDetail>();
    }
    expect(evaluation).toMatchObject({ status: 'completed', agent_version: 'v2', created_by: 'key ci' });
    expect(evaluation.mean_score).toBeCloseTo(2 / 3);
    await gateway.settle();
    const keys = await gateway.services.db.query<{ key_id: string | null }>('SELECT DISTINCT k.name AS key_id FROM usage_log u JOIN api_keys k ON k.id = u.key_id WHERE u.request_id = $1', [id]);
    expect(keys.rows).toEqual([{ key_id: 'ci' }]);
    // Cancelling an evaluation that has ended answers it as it is.
    expect((await gateway.app.inject({ method: 'POST', url: `/agents/v1/evaluations/${id}/cancel`, headers: bearer(key) })).json()).toMatchObject({ status: 'completed' });
    // The console lists it with the rest.
    expect((await owner.request('GET', `/console/api/evaluations/${id}`)).statusCode).toBe(200);

    const modelKey = await gateway.key('model');
    expect((await gateway.app.inject({ method: 'POST', url: '/agents/v1/evaluations', headers: bearer(modelKey), payload: { agent: 'support', dataset: 'refunds' } })).statusCode).toBe(403);
    // A console session is no key here: a member's playground key must not start billed runs.
    expect((await member.request('POST', '/agents/v1/evaluations', { agent: 'support', dataset: 'refunds' })).statusCode).toBe(401);
    const other = (await runAdminCommand(gateway.services, { command: 'accounts.list' })) as { data: Array<{ id: string; name: string }> };
    const strangerKey = await gateway.key('agent', {}, other.data.find((account) => account.name === 'stranger')?.id);
    expect((await gateway.app.inject({ url: `/agents/v1/evaluations/${id}`, headers: bearer(strangerKey) })).statusCode).toBe(404);
    expect((await gateway.app.inject({ method: 'POST', url: '/agents/v1/evaluations', headers: bearer(strangerKey), payload: { agent: 'support', dataset: 'refunds' } })).statusCode).toBe(404);
  });
});
