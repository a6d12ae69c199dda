import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness, UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { multipartBody } from './support/tenant-multipart-body.ts';

/**
 * The pass-through's tenant boundary (issue 63): every account's objects live in the
 * one provider account, so Junction records who created each and answers 404 — as for
 * a missing object — when another account names one in a path or a body, and lists
 * only the caller's own. Keys of one account share its objects.
 */

let gateway: GatewayHarness;
let a: string;
let aOther: string;
let b: string;

type Created = { file: string; response: string; streamedResponse: string; assistant: string; thread: string; run: string; vectorStore: string; batch: string; message: string };
let created: Created;

type Call = { method: 'GET' | 'POST' | 'DELETE'; url: string; body?: unknown };

const call = (key: string, { method, url, body }: Call) =>
  gateway.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

async function created200<T>(key: string, request: Call): Promise<T> {
  const response = await call(key, request);
  expect(response.statusCode, `${request.method} ${request.url}: ${response.body}`).toBe(200);
  return response.json() as T;
}

async function uploadFile(key: string, content: string): Promise<string> {
  const form = multipartBody({ field: 'file', filename: 'secret.jsonl', content }, { purpose: 'batch' });
  const response = await gateway.app.inject({ method: 'POST', url: '/v1/files', headers: { authorization: `Bearer ${key}`, ...form.headers }, payload: form.payload });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { id: string }).id;
}

/** The id of the Response a streamed POST /v1/responses created, read from its events. */
const streamedResponseId = (body: string): string => /"id":"(resp_[^"]+)"/.exec(body)?.[1] ?? '';

const upstreamCalls = () => gateway.openai.requests.length;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  a = await gateway.key('model');
  aOther = await gateway.key('model');
  const other = await createAccount(gateway.services.db, 'tenant b');
  await runAdminCommand(gateway.services, { command: 'credits.grant', account: other.id, amount: '100', currency: 'USD' });
  b = await gateway.key('model', {}, other.id);

  const file = await uploadFile(a, '{"custom_id":"a-secret-file-text"}');
  const response = (await created200<{ id: string }>(a, { method: 'POST', url: '/v1/responses', body: { model: 'test-echo', input: 'a secret response text' } })).id;
  const stream = await call(a, { method: 'POST', url: '/v1/responses', body: { model: 'test-echo', input: 'a streamed secret', stream: true } });
  const assistant = (await created200<{ id: string }>(a, { method: 'POST', url: '/v1/assistants', body: { model: 'test-echo', instructions: 'a secret assistant' } })).id;
  // A streamed /threads/runs creates the thread and the run: both come from the events.
  const threadRun = await call(a, { method: 'POST', url: '/v1/threads/runs', body: { assistant_id: assistant, model: 'test-echo', stream: true } });
  const thread = /"thread_id":"(thread_[^"]+)"/.exec(threadRun.body)?.[1] ?? '';
  const run = /"id":"(run_[^"]+)"/.exec(threadRun.body)?.[1] ?? '';
  const message = (
    await created200<{ id: string }>(a, { method: 'POST', url: `/v1/threads/${thread}/messages`, body: { role: 'user', content: 'a secret message', attachments: [{ file_id: file }] } })
  ).id;
  const vectorStore = (await created200<{ id: string }>(a, { method: 'POST', url: '/v1/vector_stores', body: { name: 'a secret store', file_ids: [file] } })).id;
  const batch = (await created200<{ id: string }>(a, { method: 'POST', url: '/v1/batches', body: { input_file_id: file, endpoint: '/v1/responses', completion_window: '24h' } })).id;
  created = { file, response, streamedResponse: streamedResponseId(stream.body), assistant, thread, run, vectorStore, batch, message };
  expect(
    Object.values(created).every((id) => id.length > 0),
    JSON.stringify(created),
  ).toBe(true);
});
afterAll(async () => gateway?.close());

/** Calls naming one of A's objects in the path, each a 2xx for A. */
const byPath = (): Call[] => [
  { method: 'GET', url: `/v1/files/${created.file}` },
  { method: 'GET', url: `/v1/files/${created.file}/content` },
  { method: 'GET', url: `/v1/responses/${created.response}` },
  { method: 'GET', url: `/v1/responses/${created.streamedResponse}` },
  { method: 'GET', url: `/v1/responses/${created.response}/input_items` },
  { method: 'POST', url: `/v1/responses/${created.response}/cancel`, body: {} },
  { method: 'GET', url: `/v1/assistants/${created.assistant}` },
  { method: 'POST', url: `/v1/assistants/${created.assistant}`, body: { instructions: 'changed' } },
  { method: 'GET', url: `/v1/threads/${created.thread}` },
  { method: 'GET', url: `/v1/threads/${created.thread}/messages` },
  { method: 'POST', url: `/v1/threads/${created.thread}/messages`, body: { role: 'user', content: 'more' } },
  { method: 'GET', url: `/v1/vector_stores/${created.vectorStore}` },
  { method: 'GET', url: `/v1/batches/${created.batch}` },
  { method: 'POST', url: `/v1/batches/${created.batch}/cancel`, body: {} },
  // Percent-encoded ids reach the same object upstream.
  { method: 'GET', url: `/v1/files/${encodeURIComponent(created.file).replace('-', '%2D')}` },
];

/** Calls that name one of A's objects in the body only, each a 2xx for A. */
const byBody = (): Call[] => [
  { method: 'POST', url: '/v1/responses', body: { model: 'test-echo', input: 'continue', previous_response_id: created.response } },
  { method: 'POST', url: '/v1/responses', body: { model: 'test-echo', input: [{ role: 'user', content: [{ type: 'input_file', file_id: created.file }] }] } },
  { method: 'POST', url: '/v1/responses', body: { model: 'test-echo', input: 'search', tools: [{ type: 'file_search', vector_store_ids: [created.vectorStore] }] } },
  { method: 'POST', url: '/v1/threads/runs', body: { assistant_id: created.assistant, model: 'test-echo' } },
  // The fake numbers a Response's message like the Response (resp_fakeN → msg_fakeN).
  { method: 'POST', url: '/v1/responses', body: { model: 'test-echo', input: [{ type: 'item_reference', id: created.response.replace('resp_', 'msg_') }] } },
  { method: 'POST', url: '/v1/responses', body: { model: 'test-echo', input: [{ type: 'item_reference', id: created.streamedResponse.replace('resp_', 'msg_') }] } },
  { method: 'POST', url: '/v1/vector_stores', body: { name: 'copy', file_ids: [created.file] } },
  { method: 'POST', url: '/v1/batches', body: { input_file_id: created.file, endpoint: '/v1/responses', completion_window: '24h' } },
];

describe('pass-through objects of another account', () => {
  it('answer 404 by id, as a missing object does, and never reach the provider', async () => {
    const missing = await call(b, { method: 'GET', url: '/v1/files/file-never-created' });
    expect(missing.statusCode).toBe(404);
    const before = upstreamCalls();
    for (const request of byPath()) {
      const response = await call(b, request);
      expect(response.statusCode, `${request.method} ${request.url}: ${response.body}`).toBe(404);
      expect(response.json().error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
      expect(response.body).not.toContain('secret');
    }
    expect(upstreamCalls()).toBe(before);
  });

  it('answer 404 when a body names them, and B cannot run A’s assistant on its own thread', async () => {
    const ownThread = (await created200<{ id: string }>(b, { method: 'POST', url: '/v1/threads', body: {} })).id;
    const requests: Call[] = [
      ...byBody(),
      { method: 'POST', url: `/v1/threads/${ownThread}/runs`, body: { assistant_id: created.assistant, model: 'test-echo' } },
      { method: 'POST', url: `/v1/threads/${ownThread}/messages`, body: { role: 'user', content: 'x', attachments: [{ file_id: created.file, tools: [{ type: 'file_search' }] }] } },
      { method: 'POST', url: '/v1/responses', body: { model: 'test-echo', input: [{ type: 'item_reference', id: `msg_${created.response.slice('resp_'.length)}` }] } },
    ];
    for (const request of requests) {
      const response = await call(b, request);
      expect(response.statusCode, `${request.method} ${request.url} ${JSON.stringify(request.body)}: ${response.body}`).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
  });

  it('answer 404 to ids no object could have, without a database error', async () => {
    const requests: Call[] = [
      { method: 'GET', url: `/v1/files/${'f'.repeat(5_000)}` },
      { method: 'POST', url: '/v1/responses', body: { model: 'test-echo', input: 'x', previous_response_id: 'resp_\u0000' } },
      { method: 'POST', url: '/v1/vector_stores', body: { file_ids: ['file-\u0000', 'x'.repeat(10_000)] } },
    ];
    for (const request of requests) {
      const response = await call(b, request);
      expect(response.statusCode, `${request.method} ${request.url.slice(0, 40)}: ${response.body}`).toBe(404);
    }
    const tooMany = await call(b, { method: 'POST', url: '/v1/vector_stores', body: { file_ids: Array.from({ length: 10_001 }, (_, index) => `file-${index}`) } });
    expect(tooMany.statusCode).toBe(400);
  });

  it('are left out of every list', async () => {
    await uploadFile(b, 'b own file');
    for (const family of ['files', 'assistants', 'vector_stores', 'batches', 'responses', 'threads']) {
      const page = await created200<{ object: string; data: Array<{ id: string }> }>(b, { method: 'GET', url: `/v1/${family}` });
      expect(page.object).toBe('list');
      expect(
        page.data.map((item) => item.id).filter((id) => Object.values(created).includes(id)),
        family,
      ).toEqual([]);
    }
    const files = await created200<{ data: Array<{ id: string }> }>(b, { method: 'GET', url: '/v1/files' });
    expect(files.data).toHaveLength(1);
    const foreignCursor = await call(b, { method: 'GET', url: `/v1/files?after=${created.file}` });
    expect(foreignCursor.statusCode).toBe(404);
  });

  it('cannot be deleted by B, and stay A’s', async () => {
    for (const url of [
      `/v1/files/${created.file}`,
      `/v1/responses/${created.response}`,
      `/v1/assistants/${created.assistant}`,
      `/v1/threads/${created.thread}`,
      `/v1/vector_stores/${created.vectorStore}`,
    ]) {
      const response = await call(b, { method: 'DELETE', url });
      expect(response.statusCode, url).toBe(404);
    }
    expect((await call(a, { method: 'GET', url: `/v1/files/${created.file}` })).statusCode).toBe(200);
  });
});

describe('pass-through objects of the own account', () => {
  it('are reached by every key of the account, by path and by body', async () => {
    for (const request of [...byPath(), ...byBody()]) {
      const response = await call(aOther, request);
      expect(response.statusCode, `${request.method} ${request.url}: ${response.body}`).toBe(200);
    }
    const content = await call(aOther, { method: 'GET', url: `/v1/files/${created.file}/content` });
    expect(content.body).toContain('a-secret-file-text');
    const run = await call(aOther, { method: 'GET', url: `/v1/threads/${created.thread}/runs/${created.run}` });
    expect(run.statusCode).toBe(200);
    expect(run.json()).toMatchObject({ id: created.run, thread_id: created.thread });
  });

  it('are listed with honest paging, and leave the list once deleted', async () => {
    const assistants = await created200<{ data: Array<{ id: string }>; has_more: boolean }>(aOther, { method: 'GET', url: '/v1/assistants' });
    expect(assistants.data.map((item) => item.id)).toContain(created.assistant);
    const second = await uploadFile(a, 'second');
    const files = await created200<{ data: Array<{ id: string }>; has_more: boolean; last_id: string }>(a, { method: 'GET', url: '/v1/files?limit=1&order=asc' });
    expect(files).toMatchObject({ data: [{ id: created.file }], has_more: true, last_id: created.file });
    const next = await created200<{ data: Array<{ id: string }>; has_more: boolean }>(a, { method: 'GET', url: `/v1/files?limit=100&order=asc&after=${created.file}` });
    expect(next.data.map((item) => item.id)).toEqual([second]);
    const newest = await created200<{ data: Array<{ id: string }> }>(a, { method: 'GET', url: `/v1/files?before=${created.file}&order=asc` });
    expect(newest.data).toEqual([]);
    const back = await created200<{ data: Array<{ id: string }> }>(a, { method: 'GET', url: `/v1/files?before=${second}` });
    expect(back.data).toEqual([]);
    const ahead = await created200<{ data: Array<{ id: string }> }>(a, { method: 'GET', url: `/v1/files?before=${created.file}` });
    expect(ahead.data.map((item) => item.id)).toEqual([second]);
    expect(next.has_more).toBe(false);
    expect((await call(a, { method: 'GET', url: '/v1/files?limit=0' })).statusCode).toBe(400);
    for (const query of ['after=file%00x', `before=${'f'.repeat(300)}`, 'purpose=%00', 'order=sideways']) {
      expect((await call(a, { method: 'GET', url: `/v1/files?${query}` })).statusCode, query).toBe(400);
    }

    // Deleted by the account's other key, it leaves the list and is found no more.
    expect((await call(aOther, { method: 'DELETE', url: `/v1/files/${second}` })).statusCode).toBe(200);
    const left = await created200<{ data: Array<{ id: string }> }>(a, { method: 'GET', url: '/v1/files' });
    expect(left.data.map((item) => item.id)).toEqual([created.file]);
    expect((await call(a, { method: 'GET', url: `/v1/files/${second}` })).statusCode).toBe(404);
  });
});

describe('pass-through objects Junction did not create', () => {
  it('answer 404 to every account, and file content cannot claim them', async () => {
    // Made with the provider key directly (by the operator, or before owners were recorded).
    const form = multipartBody({ field: 'file', filename: 'legacy.txt', content: 'legacy secret' }, { purpose: 'assistants' });
    const direct = await fetch(`${gateway.openai.url}/files`, { method: 'POST', headers: { authorization: `Bearer ${UPSTREAM_KEYS.openai}`, ...form.headers }, body: form.payload });
    const legacy = ((await direct.json()) as { id: string }).id;
    for (const key of [a, b]) expect((await call(key, { method: 'GET', url: `/v1/files/${legacy}/content` })).statusCode).toBe(404);
    // A file whose bytes look like a file object, read back, does not make that object B's.
    const decoy = await uploadFile(b, JSON.stringify({ id: legacy, object: 'file' }));
    expect((await call(b, { method: 'GET', url: `/v1/files/${decoy}/content` })).statusCode).toBe(200);
    expect((await call(b, { method: 'GET', url: `/v1/files/${legacy}` })).statusCode).toBe(404);
  });
});
