import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { releaseBucket } from '../../../src/agents/release-selection.ts';
import { waitForBackgroundResponse } from '../../support/background-response.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';

/** Drafts and releases of console agents: publish, pin, stage for a share of conversations, promote, abort, audit. */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let stranger: ConsoleSession;
let agentKey: string;
let strangerKey: string;

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '../../fixtures/agents-e2e');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(fixtures, 'agents'), JUNCTION_TOOLS_DIR: join(fixtures, 'tools'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  const other = (await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'stranger' })) as { data: { id: string } };
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'stranger@example.com', password: 'stranger password 1', role: 'owner', account: other.data.id });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD', account: other.data.id });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  stranger = await signIn(gateway.app, 'stranger@example.com', 'stranger password 1');
  agentKey = await gateway.key('agent');
  strangerKey = await gateway.key('agent', {}, other.data.id);
});
afterAll(async () => gateway?.close());

type ChatAnswer = { agent_version: string; conversation_id: string; error?: { code: string; message: string } };
const definition = (instructions: string) => ({ name: 'Support', model: 'openai/test-echo', instructions });
const save = (id: string, instructions: string, session = owner) => session.request('PUT', `/console/api/agents/${id}`, { definition: definition(instructions), change_note: instructions });
const chat = async (model: string, conversationId?: string, key = agentKey) => {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/agents/v1/chat/completions',
    headers: bearer(key),
    payload: { model, messages: [{ role: 'user', content: 'hello' }], ...(conversationId && { conversation_id: conversationId }) },
  });
  return { status: response.statusCode, ...response.json<ChatAnswer>() };
};
const respond = async (model: string, previousResponseId?: string, key = agentKey) => {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/agents/v1/responses',
    headers: bearer(key),
    payload: { model, input: 'hello', ...(previousResponseId && { previous_response_id: previousResponseId }) },
  });
  // Named apart from the response's own `status` field.
  return { ...response.json<{ id: string; agent_version: string; error?: { code: string } }>(), httpStatus: response.statusCode };
};
const lastSystemPrompt = (): string => {
  const body = gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> };
  return body.messages.find((message) => message.role === 'system')?.content ?? '';
};
const release = (id: string, action: string, body?: unknown, session = owner) => session.request('POST', `/console/api/agents/${id}/${action}`, body);

describe('drafts and publishing', () => {
  it('keeps a saved draft from callers until it is published; a rollback publishes an older version', async () => {
    expect((await save('support', 'Version one.')).json()).toEqual({ id: 'support', version: 1, published: true });
    expect(await chat('support')).toMatchObject({ status: 200, agent_version: 'v1' });

    expect((await save('support', 'Version two.')).json()).toEqual({ id: 'support', version: 2, published: false });
    expect(await chat('support')).toMatchObject({ agent_version: 'v1' });
    expect(lastSystemPrompt()).toContain('Version one.');
    expect((await gateway.app.inject({ url: '/agents/v1/models/support', headers: bearer(agentKey) })).json()).toMatchObject({ version: 'v1' });
    const detail = (await owner.request('GET', '/console/api/agents/support')).json();
    // The editor continues from the draft; callers get the published version.
    expect(detail).toMatchObject({ version: 'v1', published_version: 1, newest_version: 2, staged: null, definition: { instructions: 'Version two.' } });

    const published = await release('support', 'publish', { version: 2 });
    expect(published.json()).toEqual({ id: 'support', published_version: 2, staged: null });
    expect(await chat('support')).toMatchObject({ agent_version: 'v2' });
    expect(lastSystemPrompt()).toContain('Version two.');

    expect((await release('support', 'rollback', { version: 1 })).statusCode).toBe(200);
    expect(await chat('support')).toMatchObject({ agent_version: 'v1' });
    expect((await release('support', 'publish', { version: 7 })).json()).toMatchObject({ error: { code: 'not_found', param: 'version' } });
  });

  it('shows two versions as a line diff of their YAML', async () => {
    const diff = (await owner.request('GET', '/console/api/agents/support/diff?from=1&to=2')).json<{ lines: Array<{ kind: string; text: string }> }>();
    expect(diff.lines.filter((line) => line.kind !== 'same')).toEqual([
      { kind: 'removed', text: 'instructions: Version one.' },
      { kind: 'added', text: 'instructions: Version two.' },
    ]);
    expect(diff.lines).toContainEqual({ kind: 'same', text: 'model: openai/test-echo' });
    expect((await owner.request('GET', '/console/api/agents/support/diff?from=1&to=9')).statusCode).toBe(404);
  });
});

describe('version pinning', () => {
  it('answers model@N, @latest and @published on chat, responses and the models lookup', async () => {
    await save('pinned', 'Pinned one.');
    await save('pinned', 'Pinned two.');
    await save('pinned', 'Pinned three.');
    expect(await chat('pinned@2')).toMatchObject({ status: 200, agent_version: 'v2' });
    expect(lastSystemPrompt()).toContain('Pinned two.');
    expect(await chat('pinned@v3')).toMatchObject({ agent_version: 'v3' });
    expect(await chat('pinned@latest')).toMatchObject({ agent_version: 'v3' });
    expect(await chat('pinned@published')).toMatchObject({ agent_version: 'v1' });
    expect(await chat('pinned')).toMatchObject({ agent_version: 'v1' });
    expect(await respond('pinned@2')).toMatchObject({ httpStatus: 200, agent_version: 'v2' });
    const lookup = await gateway.app.inject({ url: '/agents/v1/models/pinned@latest', headers: bearer(agentKey) });
    expect(lookup.json()).toMatchObject({ id: 'pinned', version: 'v3' });

    const unknown = await chat('pinned@9');
    expect(unknown).toMatchObject({ status: 404, error: { code: 'model_not_found' } });
    expect(unknown.error?.message).toContain("no version '9'");
    expect(await chat('pinned@newest')).toMatchObject({ status: 404 });
    expect(await respond('pinned@9')).toMatchObject({ httpStatus: 404 });
    expect(await chat('nobody@1')).toMatchObject({ status: 404, error: { code: 'model_not_found' } });

    await gateway.settle();
    const rows = await gateway.services.db.query<{ agent_version: string }>("SELECT DISTINCT agent_version FROM usage_log WHERE agent_id = 'pinned' ORDER BY 1");
    expect(rows.rows.map((row) => row.agent_version)).toEqual(['v1', 'v2', 'v3']);
  });

  it('runs a background response on the version it announced when queued', async () => {
    const queued = await gateway.app.inject({ method: 'POST', url: '/agents/v1/responses', headers: bearer(agentKey), payload: { model: 'pinned@2', input: 'later', background: true } });
    expect(queued.json()).toMatchObject({ status: 'queued', agent_version: 'v2' });
    const done = await waitForBackgroundResponse<{ status: string; agent_version: string }>(gateway.baseUrl, bearer(agentKey), queued.json<{ id: string }>().id);
    expect(done).toMatchObject({ status: 'completed', agent_version: 'v2' });
    expect(lastSystemPrompt()).toContain('Pinned two.');
  });

  it('pins a file agent by its content hash', async () => {
    const { version } = (await gateway.app.inject({ url: '/agents/v1/models/echo', headers: bearer(agentKey) })).json<{ version: string }>();
    expect(version).toMatch(/^[0-9a-f]{16}$/);
    expect(await chat(`echo@${version}`)).toMatchObject({ status: 200, agent_version: version });
    expect(await chat('echo@latest')).toMatchObject({ status: 200, agent_version: version });
    expect(await chat('echo@0000000000000000')).toMatchObject({ status: 404, error: { code: 'model_not_found' } });
  });
});

describe('staged releases', () => {
  it('serves a 10% stage to its share of 200 conversations, sticky per conversation and per response chain', { timeout: 180_000 }, async () => {
    await save('canary', 'Stable.');
    await save('canary', 'Candidate.');
    expect((await release('canary', 'stage', { version: 2, share: 100 })).statusCode).toBe(400);
    expect((await release('canary', 'stage', { version: 1, share: 10 })).json()).toMatchObject({ error: { code: 'conflict' } });
    expect((await release('canary', 'stage', { version: 2, share: 10 })).json()).toEqual({ id: 'canary', published_version: 1, staged: { version: 2, share: 10 } });

    const first: ChatAnswer[] = [];
    for (let index = 0; index < 200; index += 1) first.push(await chat('canary'));
    const staged = first.filter((answer) => answer.agent_version === 'v2');
    // Each conversation's bucket is a hash of its id: the count is exactly the conversations whose bucket is below 10.
    expect(staged.length).toBe(first.filter((answer) => releaseBucket('canary', answer.conversation_id) < 10).length);
    expect(staged.length).toBeGreaterThan(8);
    expect(staged.length).toBeLessThan(36);
    expect(first.every((answer) => answer.agent_version === 'v1' || answer.agent_version === 'v2')).toBe(true);
    await gateway.settle();
    const usage = await gateway.services.db.query<{ agent_version: string; calls: number }>(
      "SELECT agent_version, count(*)::int AS calls FROM usage_log WHERE agent_id = 'canary' GROUP BY agent_version ORDER BY 1",
    );
    expect(usage.rows).toEqual([
      { agent_version: 'v1', calls: 200 - staged.length },
      { agent_version: 'v2', calls: staged.length },
    ]);

    // Every staged conversation and as many others keep their version on the next turn.
    const others = first.filter((answer) => answer.agent_version === 'v1').slice(0, staged.length);
    for (const answer of [...staged, ...others]) expect(await chat('canary', answer.conversation_id)).toMatchObject({ agent_version: answer.agent_version });
    // A pinned call never takes part in the release.
    expect(await chat('canary@1', staged[0]?.conversation_id)).toMatchObject({ agent_version: 'v1' });

    // A previous_response_id chain is one conversation: it keeps the version of its first response.
    const chains = [];
    for (let index = 0; index < 40; index += 1) chains.push(await respond('canary'));
    expect(new Set(chains.map((chain) => chain.agent_version))).toEqual(new Set(['v1', 'v2']));
    for (const chain of chains) {
      const next = await respond('canary', chain.id);
      expect(next.agent_version).toBe(chain.agent_version);
      expect((await respond('canary', next.id)).agent_version).toBe(chain.agent_version);
    }
  });

  it('promotes the staged version to everyone, or aborts it, in one call', async () => {
    const stable = (await chat('canary')).conversation_id;
    expect((await release('canary', 'promote')).json()).toEqual({ id: 'canary', published_version: 2, staged: null });
    expect(await chat('canary', stable)).toMatchObject({ agent_version: 'v2' });
    expect(await chat('canary')).toMatchObject({ agent_version: 'v2' });
    expect((await release('canary', 'promote')).json()).toMatchObject({ error: { code: 'conflict' } });

    await save('canary', 'Risky.');
    expect((await release('canary', 'stage', { version: 3, share: 99 })).statusCode).toBe(200);
    const conversations = [];
    for (let index = 0; index < 10; index += 1) conversations.push(await chat('canary'));
    expect(conversations.some((answer) => answer.agent_version === 'v3')).toBe(true);
    expect((await release('canary', 'abort')).json()).toEqual({ id: 'canary', published_version: 2, staged: null });
    for (const answer of conversations) expect(await chat('canary', answer.conversation_id)).toMatchObject({ agent_version: 'v2' });
    expect((await release('canary', 'abort')).statusCode).toBe(409);
  });

  it('records who saved, published, staged, promoted, aborted and rolled back what', async () => {
    const audit = (await owner.request('GET', '/console/api/agents/canary/audit')).json<{ data: Array<Record<string, unknown>> }>();
    expect(audit.data.map(({ action, version, previous_version, share }) => ({ action, version, previous_version, share }))).toEqual([
      { action: 'aborted', version: 3, previous_version: null, share: 99 },
      { action: 'staged', version: 3, previous_version: 2, share: 99 },
      { action: 'saved', version: 3, previous_version: null, share: null },
      { action: 'promoted', version: 2, previous_version: 1, share: 10 },
      { action: 'staged', version: 2, previous_version: 1, share: 10 },
      { action: 'saved', version: 2, previous_version: null, share: null },
      { action: 'published', version: 1, previous_version: null, share: null },
      { action: 'created', version: 1, previous_version: null, share: null },
    ]);
    expect(new Set(audit.data.map((entry) => entry.actor))).toEqual(new Set(['owner@example.com']));
    const support = (await owner.request('GET', '/console/api/agents/support/audit')).json<{ data: Array<{ action: string; version: number }> }>();
    expect(support.data.slice(0, 2)).toMatchObject([
      { action: 'rolled_back', version: 1, previous_version: 2 },
      { action: 'published', version: 2, previous_version: 1 },
    ]);
  });
});

describe('another account', () => {
  it('cannot pin, publish, stage, promote, abort, read the audit or diff the account’s agents', async () => {
    // The stranger's own agent of the same id has one version: the account's versions stay out of reach.
    expect((await save('canary', 'The stranger’s own.', stranger)).statusCode).toBe(201);
    for (const model of ['canary@2', 'canary@3', 'pinned@1', 'pinned@latest', 'support@published']) {
      const answer = await chat(model, undefined, strangerKey);
      expect(answer.status, model).toBe(404);
      expect(answer.error?.message, model).not.toContain('Stable');
      expect((await respond(model, undefined, strangerKey)).httpStatus, model).toBe(404);
      expect((await gateway.app.inject({ url: `/agents/v1/models/${model}`, headers: bearer(strangerKey) })).statusCode, model).toBe(404);
    }
    expect(await chat('canary@1', undefined, strangerKey)).toMatchObject({ status: 200, agent_version: 'v1' });
    expect(lastSystemPrompt()).toContain('The stranger’s own.');

    for (const [action, body] of [
      ['publish', { version: 1 }],
      ['rollback', { version: 1 }],
      ['stage', { version: 2, share: 10 }],
      ['promote', undefined],
      ['abort', undefined],
    ] as const) {
      expect((await release('pinned', action, body, stranger)).statusCode, action).toBe(404);
    }
    expect((await release('canary', 'stage', { version: 3, share: 50 }, stranger)).statusCode).toBe(404);
    expect((await stranger.request('GET', '/console/api/agents/pinned/audit')).statusCode).toBe(404);
    expect((await stranger.request('GET', '/console/api/agents/pinned/diff?from=1&to=2')).statusCode).toBe(404);
    const ownAudit = (await stranger.request('GET', '/console/api/agents/canary/audit')).json<{ data: Array<{ action: string; actor: string }> }>();
    expect(ownAudit.data.map((entry) => [entry.action, entry.actor])).toEqual([
      ['published', 'stranger@example.com'],
      ['created', 'stranger@example.com'],
    ]);
    // The account's release is untouched.
    expect(await chat('pinned')).toMatchObject({ agent_version: 'v1' });
    expect((await owner.request('GET', '/console/api/agents/canary')).json()).toMatchObject({ published_version: 2, newest_version: 3, staged: null });
  });
});
