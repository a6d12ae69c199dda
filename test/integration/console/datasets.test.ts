import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import type { CasePage, CaseView, DatasetView, ImportResult } from '../../../src/console/contract/datasets.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { type GatewayHarness, startGateway } from '../../support/gateway-harness.ts';
import { engineName } from '../../support/test-database.ts';
import { bearer } from '../../support/test-app.ts';

/**
 * Datasets in the console API: made, filled by hand, from JSONL (all or nothing) and from
 * the account's own runs, exported as JSONL; members read, admins write, and another
 * account's datasets, cases and runs answer 404.
 */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let member: ConsoleSession;
let stranger: ConsoleSession;
let agentKey: string;

const JSONL = { 'content-type': 'application/x-ndjson' };

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '../../fixtures/agents-e2e');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(fixtures, 'agents'), JUNCTION_TOOLS_DIR: join(fixtures, 'tools'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'member@example.com', password: 'member password 1', role: 'member' });
  const other = (await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'Other team' })) as { data: { id: string } };
  await runAdminCommand(gateway.services, { command: 'users.create', account: other.data.id, email: 'stranger@example.com', password: 'stranger password 1', role: 'owner' });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  member = await signIn(gateway.app, 'member@example.com', 'member password 1');
  stranger = await signIn(gateway.app, 'stranger@example.com', 'stranger password 1');
  agentKey = await gateway.key('agent', { name: 'support app' });
});
afterAll(async () => gateway?.close());

const created = async (session: ConsoleSession, name: string): Promise<DatasetView> => {
  const response = await session.request('POST', '/console/api/datasets', { name, description: `${name} cases` });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<DatasetView>();
};
const cases = async (session: ConsoleSession, id: string, query = ''): Promise<CasePage> => {
  const response = await session.request('GET', `/console/api/datasets/${id}/cases${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<CasePage>();
};
const caseCount = async (id: string): Promise<number> =>
  Number((await gateway.services.db.query<{ count: string }>('SELECT count(*) AS count FROM eval_cases WHERE dataset_id = $1', [id])).rows[0]?.count);
const errorOf = (body: string) => (JSON.parse(body) as { error: { code: string; message: string; param: string | null } }).error;

describe(`datasets in the console API (${engineName()})`, () => {
  let refunds: DatasetView;

  it('creates a dataset an owner and a member both list; a taken name is a conflict; a member cannot create', async () => {
    refunds = await created(owner, 'refunds');
    expect(refunds).toMatchObject({ name: 'refunds', description: 'refunds cases', case_count: 0 });
    expect(refunds.id).toMatch(/^ds_/);
    const again = await owner.request('POST', '/console/api/datasets', { name: 'refunds' });
    expect(again.statusCode).toBe(409);
    expect(errorOf(again.body).param).toBe('name');
    const byMember = await member.request('POST', '/console/api/datasets', { name: 'members-own' });
    expect(byMember.statusCode).toBe(403);
    const listed = await member.request('GET', '/console/api/datasets');
    expect(listed.json<{ data: DatasetView[] }>().data.map((dataset) => dataset.name)).toEqual(['refunds']);
    // A path takes the dataset's name as well as its id.
    expect((await member.request('GET', '/console/api/datasets/refunds')).json<DatasetView>().id).toBe(refunds.id);
  });

  it('adds, pages, edits and deletes cases by hand; bad expectations are refused naming the field', async () => {
    const add = async (body: Record<string, unknown>) => {
      const response = await owner.request('POST', `/console/api/datasets/${refunds.id}/cases`, body);
      expect(response.statusCode, response.body).toBe(201);
      return response.json<CaseView>();
    };
    const first = await add({ input: 'Can I get a refund?', reference: 'Yes, within 30 days.', tags: ['refunds'], expect: { must_contain: ['30 days'] } });
    const second = await add({
      input: [
        { role: 'user', content: 'I bought a lamp' },
        { role: 'assistant', content: 'How can I help?' },
        { role: 'user', content: 'It broke' },
      ],
    });
    expect(first).toMatchObject({ input: 'Can I get a refund?', reference: 'Yes, within 30 days.', tags: ['refunds'], expect: { must_contain: ['30 days'] }, source: null });
    expect(second).toMatchObject({ reference: null, expect: null, tags: [] });

    const page1 = await cases(member, refunds.id, '?limit=1');
    expect(page1.data.map((entry) => entry.id)).toEqual([first.id]);
    expect(page1.next_cursor).toBe(first.id);
    const page2 = await cases(member, refunds.id, `?limit=1&cursor=${page1.next_cursor}`);
    expect(page2.data.map((entry) => entry.id)).toEqual([second.id]);
    expect(page2.next_cursor).toBeNull();

    const badRegex = await owner.request('POST', `/console/api/datasets/${refunds.id}/cases`, { input: 'x', expect: { regex: '(' } });
    expect(badRegex.statusCode).toBe(400);
    expect(errorOf(badRegex.body).param).toBe('expect.regex');
    const unknownField = await owner.request('POST', `/console/api/datasets/${refunds.id}/cases`, { input: 'x', expected: 'y' });
    expect(unknownField.statusCode).toBe(400);

    const edited = await owner.request('PATCH', `/console/api/datasets/${refunds.id}/cases/${second.id}`, { reference: 'Sorry to hear it: here is a refund.', tags: ['broken'] });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json<CaseView>()).toMatchObject({ reference: 'Sorry to hear it: here is a refund.', tags: ['broken'], input: second.input });
    const cleared = await owner.request('PATCH', `/console/api/datasets/${refunds.id}/cases/${first.id}`, { expect: null });
    expect(cleared.json<CaseView>()).toMatchObject({ expect: null, reference: 'Yes, within 30 days.' });

    expect((await member.request('PATCH', `/console/api/datasets/${refunds.id}/cases/${second.id}`, { reference: 'member edit' })).statusCode).toBe(403);
    expect((await member.request('DELETE', `/console/api/datasets/${refunds.id}/cases/${second.id}`)).statusCode).toBe(403);
    expect((await owner.request('DELETE', `/console/api/datasets/${refunds.id}/cases/${second.id}`)).statusCode).toBe(200);
    expect((await owner.request('DELETE', `/console/api/datasets/${refunds.id}/cases/${second.id}`)).statusCode).toBe(404);
    expect(await caseCount(refunds.id)).toBe(1);
  });

  it('imports JSONL in order; a bad line is a 400 naming its number and nothing is written', async () => {
    const imports = await created(owner, 'imports');
    const lines = [
      JSON.stringify({ input: 'one', reference: 'uno', tags: ['numbers'] }),
      '',
      JSON.stringify({ input: [{ role: 'user', content: 'two' }], expect: { tool_calls: [{ name: 'lookup', arguments: { id: 2 } }] } }),
      JSON.stringify({ input: 'three' }),
    ].join('\n');
    const imported = await owner.request('POST', `/console/api/datasets/${imports.id}/import?file=numbers.jsonl`, lines, JSONL);
    expect(imported.statusCode, imported.body).toBe(201);
    expect(imported.json<ImportResult>()).toMatchObject({ imported: 3, dataset: { case_count: 3 } });
    const listed = await cases(owner, imports.id);
    expect(listed.data.map((entry) => entry.input)).toEqual(['one', [{ role: 'user', content: 'two' }], 'three']);
    expect(listed.data[0]?.source).toEqual({ file: 'numbers.jsonl' });

    for (const [body, line, param] of [
      [`${JSON.stringify({ input: 'four' })}\n${JSON.stringify({ input: 'five' })}\n${JSON.stringify({ reference: 'no input' })}`, 3, 'line 3: input'],
      [`${JSON.stringify({ input: 'four' })}\n{"input": "five"`, 2, 'line 2'],
      [`${JSON.stringify({ input: 'four' })}\n${JSON.stringify({ input: 'five', expect: { regex: '[' } })}`, 2, 'line 2: expect.regex'],
      [JSON.stringify({ input: 'four', colour: 'blue' }), 1, 'line 1: colour'],
      [JSON.stringify({ input: 'four\u0000' }), 1, 'line 1: input'],
    ] as const) {
      const refused = await owner.request('POST', `/console/api/datasets/${imports.id}/import`, body, JSONL);
      expect(refused.statusCode, refused.body).toBe(400);
      expect(errorOf(refused.body).message).toMatch(new RegExp(`^Line ${line}\\b`));
      expect(errorOf(refused.body).param).toBe(param);
      expect(await caseCount(imports.id)).toBe(3);
    }

    const byMember = await member.request('POST', `/console/api/datasets/${imports.id}/import`, JSON.stringify({ input: 'member' }), JSONL);
    expect(byMember.statusCode).toBe(403);
    const asJson = await owner.request('POST', `/console/api/datasets/${imports.id}/import`, { input: 'json body' });
    expect(asJson.statusCode).toBe(415);
    expect(await caseCount(imports.id)).toBe(3);
  });

  it('exports JSONL that imports back as the same cases', async () => {
    const exported = await member.request('GET', '/console/api/datasets/imports/export');
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(exported.headers['content-disposition']).toBe('attachment; filename="imports.jsonl"');
    const lines = exported.body.trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { input: 'one', reference: 'uno', tags: ['numbers'] },
      { input: [{ role: 'user', content: 'two' }], expect: { tool_calls: [{ name: 'lookup', arguments: { id: 2 } }] } },
      { input: 'three' },
    ]);
    const copy = await created(owner, 'imports-copy');
    expect((await owner.request('POST', `/console/api/datasets/${copy.id}/import`, exported.body, JSONL)).statusCode).toBe(201);
    const strip = (page: CasePage) => page.data.map(({ input, reference, expect: expected, tags }) => ({ input, reference, expect: expected, tags }));
    expect(strip(await cases(owner, copy.id))).toEqual(strip(await cases(owner, 'imports')));
  });

  it('adds a case from a chat run: the conversation so far is the input, the answer the reference', async () => {
    const chat = async (payload: Record<string, unknown>) => {
      const response = await gateway.app.inject({ method: 'POST', url: '/agents/v1/chat/completions', headers: bearer(agentKey), payload });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ id: string; conversation_id: string; choices: [{ message: { content: string } }] }>();
    };
    const first = await chat({ model: 'echo', messages: [{ role: 'user', content: 'my order is late' }] });
    const second = await chat({ model: 'echo', conversation_id: first.conversation_id, messages: [{ role: 'user', content: 'where is it now?' }] });
    const runId = second.id.replace(/^chatcmpl-/, '');

    const added = await owner.request('POST', `/console/api/datasets/${refunds.id}/cases/from-run`, { run_id: runId, tags: ['production'] });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json<CaseView>()).toMatchObject({
      input: [
        { role: 'user', content: 'my order is late' },
        { role: 'assistant', content: first.choices[0].message.content },
        { role: 'user', content: 'where is it now?' },
      ],
      reference: second.choices[0].message.content,
      tags: ['production'],
      source: { run_id: runId, conversation_id: first.conversation_id },
    });

    // The first turn, named by its conversation item: the conversation up to there.
    const tree = await owner.request('GET', `/console/api/conversations/${first.conversation_id}`);
    const firstAnswer = tree.json<{ messages: { id: string; role: string }[] }>().messages[1];
    const byItem = await owner.request('POST', `/console/api/datasets/${refunds.id}/cases/from-run`, { conversation_id: first.conversation_id, item_id: firstAnswer?.id });
    expect(byItem.statusCode, byItem.body).toBe(201);
    expect(byItem.json<CaseView>()).toMatchObject({ input: 'my order is late', reference: first.choices[0].message.content });
  });

  it('adds a case from a stored response by its id', async () => {
    const response = await gateway.app.inject({ method: 'POST', url: '/agents/v1/responses', headers: bearer(agentKey), payload: { model: 'echo', input: 'refund my lamp' } });
    expect(response.statusCode, response.body).toBe(200);
    const answered = response.json<{ id: string; output_text?: string; output: { type: string; content?: { type: string; text: string }[] }[] }>();
    const text = answered.output.flatMap((item) => item.content ?? []).find((part) => part.type === 'output_text')?.text;
    const added = await owner.request('POST', `/console/api/datasets/${refunds.id}/cases/from-run`, { response_id: answered.id });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json<CaseView>()).toMatchObject({ input: 'refund my lamp', reference: text, source: { response_id: answered.id } });
    expect((await member.request('POST', `/console/api/datasets/${refunds.id}/cases/from-run`, { response_id: answered.id })).statusCode).toBe(403);
  });

  it("another account's dataset, cases and runs answer 404 and stay as they were", async () => {
    const mine = await created(stranger, 'refunds');
    const [entry] = (await cases(owner, refunds.id)).data;
    const before = await caseCount(refunds.id);
    for (const [method, url, body] of [
      ['GET', `/console/api/datasets/${refunds.id}`],
      ['GET', `/console/api/datasets/${refunds.id}/cases`],
      ['GET', `/console/api/datasets/${refunds.id}/export`],
      ['POST', `/console/api/datasets/${refunds.id}/cases`, { input: 'planted' }],
      ['PATCH', `/console/api/datasets/${refunds.id}/cases/${entry?.id}`, { reference: 'planted' }],
      ['DELETE', `/console/api/datasets/${refunds.id}/cases/${entry?.id}`],
      ['PATCH', `/console/api/datasets/${mine.id}/cases/${entry?.id}`, { reference: 'planted' }],
      ['DELETE', `/console/api/datasets/${mine.id}/cases/${entry?.id}`],
      ['DELETE', `/console/api/datasets/${refunds.id}`],
    ] as const) {
      const response = await stranger.request(method, url, body);
      expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(404);
    }
    // Their own dataset of the same name is theirs: the name resolves in the caller's account only.
    expect((await stranger.request('GET', '/console/api/datasets/refunds')).json<DatasetView>().id).toBe(mine.id);
    expect((await stranger.request('GET', '/console/api/datasets')).json<{ data: DatasetView[] }>().data.map((dataset) => dataset.id)).toEqual([mine.id]);

    // The owner's runs are not the stranger's to take, even into the stranger's own dataset.
    const runs = await gateway.services.db.query<{ id: string; run_id: string; conversation_id: string }>(
      "SELECT id, metadata->>'run_id' AS run_id, conversation_id FROM conversation_messages WHERE metadata->>'run_id' IS NOT NULL LIMIT 1",
    );
    const run = runs.rows[0];
    for (const body of [{ run_id: run?.run_id }, { item_id: run?.id }, { conversation_id: run?.conversation_id, item_id: run?.id }]) {
      const taken = await stranger.request('POST', `/console/api/datasets/${mine.id}/cases/from-run`, body);
      expect(taken.statusCode, taken.body).toBe(404);
    }
    expect(await caseCount(mine.id)).toBe(0);
    expect(await caseCount(refunds.id)).toBe(before);
  });

  it('deletes a dataset with its cases', async () => {
    const doomed = await created(owner, 'doomed');
    await owner.request('POST', `/console/api/datasets/${doomed.id}/cases`, { input: 'bye' });
    expect((await member.request('DELETE', `/console/api/datasets/${doomed.id}`)).statusCode).toBe(403);
    expect((await owner.request('DELETE', `/console/api/datasets/${doomed.id}`)).statusCode).toBe(200);
    expect((await owner.request('GET', `/console/api/datasets/${doomed.id}`)).statusCode).toBe(404);
    expect(await caseCount(doomed.id)).toBe(0);
  });
});
