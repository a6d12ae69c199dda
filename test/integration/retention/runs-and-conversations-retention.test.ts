import { describe, expect, it } from 'vitest';
import { sweepFinishedRuns } from '../../../src/agents/durable/finished-run-retention.ts';
import { sweepConversations } from '../../../src/conversations/conversation-retention.ts';
import { waitForBackgroundResponse } from '../../support/background-response.ts';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** What runs and conversations leave is kept for its retention, then swept: old and finished only, with everything that hangs off it. */
const runtime = useRuntimeGateway({ echo: 'name: Echo\nmodel: openai/test-echo\ninstructions: Repeat.\n' });

type Resource = { id: string; status: string; conversation?: { id: string } | null };
const post = async (path: string, body: Record<string, unknown>) => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1${path}`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify(body) });
  expect(response.status, path).toBe(200);
  return (await response.json()) as Resource;
};
const statusOf = async (path: string) => (await fetch(`${runtime.gateway.baseUrl}/agents/v1${path}`, { headers: runtime.headers() })).status;
const count = async (sql: string, params: unknown[]) => (await runtime.gateway.services.db.query<{ n: number }>(sql, params)).rows[0]?.n ?? 0;
const sweepOptions = () => ({ db: runtime.gateway.services.db, days: 30, now: () => new Date() });

describe(`retention of runs and conversations on ${engineName()}`, () => {
  it('deletes a conversation idle past the retention with its responses, and keeps a recent one', async () => {
    const old = await post('/conversations', {});
    const oldResponse = await post('/responses', { model: 'echo', input: 'first words', conversation: old.id });
    const recent = await post('/conversations', {});
    const recentResponse = await post('/responses', { model: 'echo', input: 'new words', conversation: recent.id });
    await runtime.gateway.services.db.query(`UPDATE conversations SET updated_at = now() - interval '40 days' WHERE id = $1`, [old.id]);

    expect(await sweepConversations(sweepOptions())).toBe(1);

    expect(await statusOf(`/conversations/${old.id}`)).toBe(404);
    expect(await statusOf(`/responses/${oldResponse.id}`)).toBe(404);
    expect(await count('SELECT count(*)::int AS n FROM conversation_messages WHERE conversation_id = $1', [old.id])).toBe(0);
    expect(await statusOf(`/conversations/${recent.id}`)).toBe(200);
    expect(await statusOf(`/responses/${recentResponse.id}`)).toBe(200);
    expect(await sweepConversations(sweepOptions())).toBe(0);
  });

  it('deletes finished runs past the retention with their events, and keeps a run paused for an approval', async () => {
    const first = await post('/responses', { model: 'echo', input: 'one', background: true });
    const second = await post('/responses', { model: 'echo', input: 'two', background: true });
    const third = await post('/responses', { model: 'echo', input: 'three', background: true });
    for (const { id } of [first, second, third]) expect((await waitForBackgroundResponse<Resource>(runtime.gateway.baseUrl, runtime.headers(), id)).status).toBe('completed');
    const runIdOf = async (responseId: string) => (await runtime.gateway.services.db.query<{ id: string }>('SELECT id FROM agent_runs WHERE response_id = $1', [responseId])).rows[0]?.id ?? '';
    const [oldRun, pausedRun, recentRun] = [await runIdOf(first.id), await runIdOf(second.id), await runIdOf(third.id)];
    expect(await count('SELECT count(*)::int AS n FROM agent_run_events WHERE run_id = $1', [oldRun])).toBeGreaterThan(0);
    await runtime.gateway.services.db.query(`UPDATE agent_runs SET updated_at = now() - interval '40 days' WHERE id = ANY($1::text[])`, [[oldRun, pausedRun]]);
    // Stands for a run whose approval has not been answered: its answer may still come, so it stays.
    await runtime.gateway.services.db.query(`UPDATE agent_runs SET status = 'requires_action' WHERE id = $1`, [pausedRun]);

    expect(await sweepFinishedRuns(sweepOptions())).toBe(1);

    expect(await count('SELECT count(*)::int AS n FROM agent_runs WHERE id = $1', [oldRun])).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM agent_run_events WHERE run_id = $1', [oldRun])).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM agent_runs WHERE id = ANY($1::text[])', [[pausedRun, recentRun]])).toBe(2);
    expect(await count('SELECT count(*)::int AS n FROM agent_run_events WHERE run_id = $1', [recentRun])).toBeGreaterThan(0);
    // The stored response outlives its run: it is the conversation's, kept by the conversation retention.
    expect(await statusOf(`/responses/${first.id}`)).toBe(200);
  });
});
