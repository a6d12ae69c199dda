import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';
import { engineName } from '../../support/test-database.ts';

/** Feedback on agent answers: the Agents API for apps, the playground's session, and the console's sums per version. */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let member: ConsoleSession;
let stranger: ConsoleSession;
let agentKey: string;
let secondKey: string;
let strangerKey: string;

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '../../fixtures/agents-e2e');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(fixtures, 'agents'), JUNCTION_TOOLS_DIR: join(fixtures, 'tools'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'member@example.com', password: 'member password 1', role: 'member' });
  const other = (await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'stranger' })) as { data: { id: string } };
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'stranger@example.com', password: 'stranger password 1', role: 'owner', account: other.data.id });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD', account: other.data.id });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  member = await signIn(gateway.app, 'member@example.com', 'member password 1');
  stranger = await signIn(gateway.app, 'stranger@example.com', 'stranger password 1');
  agentKey = await gateway.key('agent');
  secondKey = await gateway.key('agent');
  strangerKey = await gateway.key('agent', {}, other.data.id);
  await owner.request('PUT', '/console/api/agents/support', { definition: { name: 'Support', model: 'openai/test-echo', instructions: 'Version one.' } });
});
afterAll(async () => gateway?.close());

type Entry = { id: string; response_id: string | null; message_id: string | null; run_id: string | null; agent_id: string; agent_version: string | null; score: number; thumb: string | null };
type ErrorBody = { error: { code: string; type: string; message: string; param: string | null } };

const respond = async (model: string, key = agentKey) => {
  const response = await gateway.app.inject({ method: 'POST', url: '/agents/v1/responses', headers: bearer(key), payload: { model, input: 'hello' } });
  expect(response.statusCode).toBe(200);
  return response.json<{ id: string; agent_version: string }>();
};
const feedback = (path: string, payload: unknown, key = agentKey) => gateway.app.inject({ method: 'POST', url: `/agents/v1/${path}/feedback`, headers: bearer(key), payload: payload as object });
const listed = (path: string, key = agentKey) => gateway.app.inject({ url: `/agents/v1/${path}/feedback`, headers: bearer(key) });

describe(`feedback through the Agents API on ${engineName()}`, () => {
  it('takes a thumb or a score from 0 to 1, keeps every entry with its key, and lists them newest first', async () => {
    const answer = await respond('support');
    const up = await feedback(`responses/${answer.id}`, { score: 'up', label: 'helpful', comment: 'Spot on.', metadata: { user: 'u-1' } });
    expect(up.statusCode).toBe(200);
    expect(up.json()).toMatchObject({
      object: 'feedback',
      response_id: answer.id,
      agent_id: 'support',
      agent_version: 'v1',
      score: 1,
      thumb: 'up',
      label: 'helpful',
      comment: 'Spot on.',
      metadata: { user: 'u-1' },
    });
    expect(up.json<Entry>().run_id).toMatch(/^run_/);
    expect((await feedback(`responses/${answer.id}`, { score: 'down' })).json()).toMatchObject({ score: 0, thumb: 'down', label: null, comment: null });
    // Another key of the account (the app's feedback service) may rate the answer too.
    const scored = await feedback(`responses/${answer.id}`, { score: 0.25 }, secondKey);
    expect(scored.json()).toMatchObject({ score: 0.25, thumb: null });

    const list = (await listed(`responses/${answer.id}`)).json<{ object: string; data: Array<Entry & { key_id: string }>; has_more: boolean }>();
    expect(list.object).toBe('list');
    expect(list.data.map((entry) => entry.score)).toEqual([0.25, 0, 1]);
    expect(new Set(list.data.map((entry) => entry.key_id)).size).toBe(2);
    const paged = (await gateway.app.inject({ url: `/agents/v1/responses/${answer.id}/feedback?limit=2`, headers: bearer(agentKey) })).json<{ data: Entry[]; has_more: boolean; last_id: string }>();
    expect(paged).toMatchObject({ has_more: true });
    const rest = (await gateway.app.inject({ url: `/agents/v1/responses/${answer.id}/feedback?limit=2&after=${paged.last_id}`, headers: bearer(agentKey) })).json<{
      data: Entry[];
      has_more: boolean;
    }>();
    expect(rest.data.map((entry) => entry.score)).toEqual([1]);
    expect(rest.has_more).toBe(false);
  });

  it('rates a chat answer by the message_id its reply carried', async () => {
    const chat = await gateway.app.inject({
      method: 'POST',
      url: '/agents/v1/chat/completions',
      headers: bearer(agentKey),
      payload: { model: 'support', messages: [{ role: 'user', content: 'hi' }] },
    });
    const { message_id: messageId } = chat.json<{ message_id: string }>();
    const given = await feedback(`chat/completions/${messageId}`, { score: 0.9, label: 'tone' });
    expect(given.statusCode).toBe(200);
    expect(given.json()).toMatchObject({ message_id: messageId, response_id: null, agent_id: 'support', agent_version: 'v1', score: 0.9, label: 'tone' });
    expect((await listed(`chat/completions/${messageId}`)).json<{ data: Entry[] }>().data).toHaveLength(1);
  });

  it('refuses a score, label, comment or metadata out of bounds with a 400 naming the field', async () => {
    const answer = await respond('support');
    const cases: Array<[unknown, string, string]> = [
      [{ score: 1.5 }, 'score', "must be a number from 0 to 1, or 'up' or 'down'"],
      [{ score: -0.1 }, 'score', 'from 0 to 1'],
      [{ score: 'meh' }, 'score', "'up' or 'down'"],
      [{ score: '0.5' }, 'score', 'from 0 to 1'],
      [{}, 'score', 'from 0 to 1'],
      [{ score: 'up', label: 'x'.repeat(101) }, 'label', 'at most 100 characters'],
      [{ score: 'up', comment: 'x'.repeat(2001) }, 'comment', 'at most 2000 characters'],
      [{ score: 'up', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, index])) }, 'metadata', 'at most 16 keys'],
      [{ score: 'up', metadata: 'not an object' }, 'metadata', 'expected record'],
      [{ score: 'up', rating: 5 }, 'rating', "Unknown field 'rating'"],
    ];
    for (const [payload, param, words] of cases) {
      const refused = await feedback(`responses/${answer.id}`, payload);
      expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
      const body = refused.json<ErrorBody>();
      expect(body.error.param, JSON.stringify(payload)).toBe(param);
      expect(body.error.message, JSON.stringify(payload)).toContain(words);
    }
    expect((await feedback(`responses/${answer.id}`, { score: 'up', label: 'x'.repeat(100), comment: 'y'.repeat(2000) })).statusCode).toBe(200);
    expect((await listed(`responses/${answer.id}`)).json<{ data: Entry[] }>().data).toHaveLength(1);
  });

  it("answers 404 alike for an unknown answer and for another account's", async () => {
    const mine = await respond('support');
    const chat = await gateway.app.inject({
      method: 'POST',
      url: '/agents/v1/chat/completions',
      headers: bearer(agentKey),
      payload: { model: 'support', messages: [{ role: 'user', content: 'hi' }] },
    });
    const messageId = chat.json<{ message_id: string }>().message_id;
    const unknown = await feedback('responses/resp_missing', { score: 'up' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: { code: 'not_found', type: 'not_found_error', message: "No response found with id 'resp_missing'.", param: null } });
    const theirs = await feedback(`responses/${mine.id}`, { score: 'down' }, strangerKey);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json()).toEqual({ error: { code: 'not_found', type: 'not_found_error', message: `No response found with id '${mine.id}'.`, param: null } });
    expect((await listed(`responses/${mine.id}`, strangerKey)).statusCode).toBe(404);
    expect((await feedback(`chat/completions/${messageId}`, { score: 'down' }, strangerKey)).statusCode).toBe(404);
    expect((await listed(`chat/completions/${messageId}`, strangerKey)).statusCode).toBe(404);
    expect((await feedback('chat/completions/msg_missing', { score: 'up' })).json<ErrorBody>().error.code).toBe('not_found');
    // Nothing was written for the stranger's tries.
    expect((await listed(`responses/${mine.id}`)).json<{ data: Entry[] }>().data).toEqual([]);
    // A model key does not reach the Agents API at all.
    expect((await feedback(`responses/${mine.id}`, { score: 'up' }, await gateway.key('model'))).statusCode).toBe(403);
  });

  it('takes feedback from the playground through the console session, under the person’s playground key', async () => {
    const played = await owner.request('POST', '/agents/v1/responses', { model: 'support', input: 'from the playground' });
    const id = played.json<{ id: string }>().id;
    const given = await owner.request('POST', `/agents/v1/responses/${id}/feedback`, { score: 'up', comment: 'Nice.' });
    expect(given.statusCode).toBe(200);
    const keyId = given.json<{ key_id: string }>().key_id;
    const bound = await gateway.services.db.query<{ key_id: string }>('SELECT p.key_id::text AS key_id FROM playground_keys p JOIN users u ON u.id = p.user_id WHERE u.email = $1', [
      'owner@example.com',
    ]);
    expect(bound.rows.map((row) => row.key_id)).toEqual([keyId]);
    // Without the CSRF token a session cannot give feedback.
    expect((await owner.request('POST', `/agents/v1/responses/${id}/feedback`, { score: 'up' }, { 'x-csrf-token': 'wrong' })).statusCode).toBe(403);
  });
});

describe(`feedback in the console on ${engineName()}`, () => {
  type Summary = { agent_id: string; versions: Array<{ version: string | null; count: number; mean_score: number; up: number; down: number }> };
  const summary = async (session = owner, id = 'rated') => session.request('GET', `/console/api/agents/${id}/feedback-summary`);

  it('sums feedback per version: count, mean score, up and down', async () => {
    await owner.request('PUT', '/console/api/agents/rated', { definition: { name: 'Rated', model: 'openai/test-echo', instructions: 'One.' } });
    for (const score of ['up', 'up', 'down', 0.5] as const) await feedback(`responses/${(await respond('rated')).id}`, { score });
    await owner.request('PUT', '/console/api/agents/rated', { definition: { name: 'Rated', model: 'openai/test-echo', instructions: 'Two.' } });
    expect((await owner.request('POST', '/console/api/agents/rated/publish', { version: 2 })).statusCode).toBe(200);
    for (const score of ['down', 0.2] as const) await feedback(`responses/${(await respond('rated')).id}`, { score });
    // A pinned call counts for the version it pinned.
    await feedback(`responses/${(await respond('rated@1')).id}`, { score: 0 });

    const answer = await summary();
    expect(answer.statusCode).toBe(200);
    const versions = answer.json<Summary>().versions;
    expect(versions.map((entry) => entry.version)).toEqual(['v1', 'v2']);
    const [v1, v2] = versions;
    expect(v1).toMatchObject({ version: 'v1', count: 5, up: 3, down: 2 });
    expect(v1?.mean_score).toBeCloseTo((1 + 1 + 0 + 0.5 + 0) / 5, 10);
    expect(v2).toMatchObject({ version: 'v2', count: 2, up: 0, down: 2 });
    expect(v2?.mean_score).toBeCloseTo(0.1, 10);
    // Members read it; another account has no such agent.
    expect((await summary(member)).json<Summary>().versions).toHaveLength(2);
    expect((await summary(stranger)).statusCode).toBe(404);
    expect((await summary(owner, 'nobody')).statusCode).toBe(404);
  });

  it('lists the rated runs filtered by agent, version and rating, and a run’s feedback on its page', async () => {
    type Page = { data: Entry[]; next_cursor: string | null };
    const search = async (query: string, session = owner) => (await session.request('GET', `/console/api/feedback?${query}`)).json<Page>();
    const down = await search('agent_id=rated&rating=down');
    expect(down.data.map((entry) => entry.score)).toEqual([0, 0.2, 0, 0]);
    expect(down.data.every((entry) => entry.run_id?.startsWith('run_'))).toBe(true);
    expect((await search('agent_id=rated&rating=up')).data.map((entry) => entry.score)).toEqual([0.5, 1, 1]);
    expect((await search('agent_id=rated&agent_version=v2')).data).toHaveLength(2);
    const first = await search('agent_id=rated&limit=4');
    expect(first.data).toHaveLength(4);
    expect((await search(`agent_id=rated&limit=4&cursor=${first.next_cursor}`)).data).toHaveLength(3);
    expect((await owner.request('GET', '/console/api/feedback?rating=sideways')).statusCode).toBe(400);
    expect((await search('', stranger)).data).toEqual([]);

    const rated = down.data[0] as Entry;
    const byRun = (await owner.request('GET', `/console/api/runs/${rated.run_id}/feedback`)).json<Page>();
    expect(byRun.data.map((entry) => entry.id)).toEqual([rated.id]);
    const byResponse = (await owner.request('GET', `/console/api/runs/${rated.response_id}/feedback`)).json<Page>();
    expect(byResponse.data.map((entry) => entry.id)).toEqual([rated.id]);
    expect((await stranger.request('GET', `/console/api/runs/${rated.run_id}/feedback`)).json<Page>().data).toEqual([]);
  });

  it('forgets the feedback of a deleted conversation with it', async () => {
    const answer = await respond('support');
    await feedback(`responses/${answer.id}`, { score: 'up', comment: 'private words' });
    const stored = await gateway.services.db.query<{ conversation_id: string }>('SELECT conversation_id FROM agent_feedback WHERE response_id = $1', [answer.id]);
    const conversationId = stored.rows[0]?.conversation_id;
    expect(conversationId).toMatch(/^conv_/);
    expect((await gateway.app.inject({ method: 'DELETE', url: `/agents/v1/conversations/${conversationId}`, headers: bearer(agentKey) })).statusCode).toBe(200);
    expect((await gateway.services.db.query('SELECT 1 FROM agent_feedback WHERE response_id = $1', [answer.id])).rows).toEqual([]);
  });
});
