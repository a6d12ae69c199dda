import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import type { ExperimentView } from '../../../src/console/contract/evaluations.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { type GatewayHarness, startGateway } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * A change to an agent from edit to everyone, as a team makes it: the draft is compared with
 * the published version on cases taken from production runs (a model judge over whole runs
 * among the scorers), released to 10% of conversations, judged by its users' feedback per
 * version, and promoted. Each step is its own route; this test holds them together.
 */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let agentKey: string;

const AGENT = { name: 'Support', model: 'openai/test-echo', instructions: 'Answer the customer.' };

beforeAll(async () => {
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  agentKey = await gateway.key('agent', { name: 'support app' });
}, 60_000);
afterAll(async () => gateway?.close());

type Answer = { id: string; agent_version: string; conversation: { id: string } | null };
const respond = async (model: string, input: string, extra: Record<string, unknown> = {}) => {
  const response = await gateway.app.inject({ method: 'POST', url: '/agents/v1/responses', headers: bearer(agentKey), payload: { model, input, ...extra } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Answer>();
};
const feedback = async (responseId: string, score: 'up' | 'down') => {
  const given = await gateway.app.inject({ method: 'POST', url: `/agents/v1/responses/${responseId}/feedback`, headers: bearer(agentKey), payload: { score } });
  expect(given.statusCode, given.body).toBe(200);
};

describe(`changing an agent safely on ${engineName()}`, () => {
  it('drafts, compares on production cases with a judge, stages to 10%, watches feedback per version, promotes', async () => {
    expect((await owner.request('PUT', '/console/api/agents/support', { definition: AGENT })).json()).toMatchObject({ version: 1, published: true });

    // Production traffic on the published version becomes the dataset.
    const created = await owner.request('POST', '/console/api/datasets', { name: 'production' });
    expect(created.statusCode, created.body).toBe(201);
    const datasetId = created.json<{ id: string }>().id;
    for (const question of ['where is my order', 'refund please']) {
      const answer = await respond('support', question);
      expect(answer.agent_version).toBe('v1');
      const added = await owner.request('POST', `/console/api/datasets/${datasetId}/cases/from-run`, { response_id: answer.id });
      expect(added.statusCode, added.body).toBe(201);
    }

    // The edit is a draft: callers still get version 1.
    expect((await owner.request('PUT', '/console/api/agents/support', { definition: { ...AGENT, max_output_tokens: 1 } })).json()).toMatchObject({ version: 2, published: false });
    expect((await respond('support', 'still one?')).agent_version).toBe('v1');

    // Side by side on those cases, a model judge reading each whole run among the scorers.
    const started = await owner.request('POST', '/console/api/experiments', {
      agent: 'support',
      dataset: 'production',
      baseline: { version: 'published' },
      candidate: { version: 'draft' },
      scorers: [{ type: 'exact' }, { type: 'judge', rubric: 'The answer mentions "order" or "refund".', model: 'openai/test-judge' }],
    });
    expect(started.statusCode, started.body).toBe(202);
    let experiment = started.json<ExperimentView>();
    while (experiment.status === 'running') {
      await sleep(20);
      experiment = (await owner.request('GET', `/console/api/experiments/${experiment.id}`)).json<ExperimentView>();
    }
    expect(experiment).toMatchObject({ status: 'completed', baseline: { agent_version: 'v1' }, candidate: { agent_version: 'v2' } });
    expect(experiment.cases).toHaveLength(2);
    expect(experiment.scorers.map((entry) => entry.scorer).sort()).toEqual(['exact', 'judge']);
    // The draft answers with one word: the exact match to production's answers regresses on every case.
    expect(experiment.regressions).toBe(2);
    for (const entry of experiment.cases) {
      expect(entry.baseline?.scores.find((score) => score.scorer === 'judge')?.score).toEqual(expect.any(Number));
      expect(entry.candidate?.scores.find((score) => score.scorer === 'judge')?.score).toEqual(expect.any(Number));
    }

    // Released to 10% of conversations: every conversation keeps the version its first turn got.
    expect((await owner.request('POST', '/console/api/agents/support/stage', { version: 2, share: 10 })).json()).toEqual({ id: 'support', published_version: 1, staged: { version: 2, share: 10 } });
    const served: string[] = [];
    for (let turn = 0; turn < 12; turn += 1) {
      const first = await respond('support', `question ${turn}`, { store: true });
      const next = await respond('support', 'and then?', { previous_response_id: first.id });
      expect(next.agent_version).toBe(first.agent_version);
      served.push(first.agent_version);
    }
    expect(new Set(served).size).toBeLessThanOrEqual(2);
    expect(served.every((version) => version === 'v1' || version === 'v2')).toBe(true);

    // Users' feedback, summed per version (version 2 rated through a pinned call).
    await feedback((await respond('support@1', 'rate me')).id, 'up');
    await feedback((await respond('support@2', 'rate me')).id, 'down');
    const summary = (await owner.request('GET', '/console/api/agents/support/feedback-summary')).json<{ versions: Array<{ version: string; count: number; up: number; down: number }> }>();
    const perVersion = summary.versions.map(({ version, count, up, down }) => ({ version, count, up, down }));
    expect(perVersion.sort((a, b) => a.version.localeCompare(b.version))).toEqual([
      { version: 'v1', count: 1, up: 1, down: 0 },
      { version: 'v2', count: 1, up: 0, down: 1 },
    ]);

    // The split shows in Usage: each call names the version that made it.
    const usage = (await owner.request('GET', '/console/api/usage?agent_id=support&limit=200')).json<{ data: Array<{ agent_version: string | null }> }>();
    expect(new Set(usage.data.map((entry) => entry.agent_version))).toEqual(new Set(['v1', 'v2']));

    // Promoted: everyone gets version 2, and the audit trail says who did what.
    expect((await owner.request('POST', '/console/api/agents/support/promote')).json()).toEqual({ id: 'support', published_version: 2, staged: null });
    expect((await respond('support', 'after the promotion')).agent_version).toBe('v2');
    const audit = (await owner.request('GET', '/console/api/agents/support/audit')).json<{ data: Array<{ action: string; actor: string | null }> }>();
    expect(audit.data.map((entry) => entry.action)).toEqual(['promoted', 'staged', 'saved', 'published', 'created']);
    expect(new Set(audit.data.map((entry) => entry.actor))).toEqual(new Set(['owner@example.com']));
  }, 120_000);
});
