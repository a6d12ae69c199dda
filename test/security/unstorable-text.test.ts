import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { issueSetupLink } from '../../src/console/session-routes.ts';
import { registerErrorHandlers } from '../../src/http/error-handler.ts';
import { ORIGIN, sessionCookieOf, sessionFrom, type ConsoleSession } from '../support/console-session.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';
import { engineName } from '../support/test-database.ts';
import { bearer } from '../support/test-app.ts';

/**
 * Text the database cannot store (NUL, lone surrogates) and bodies nested too deep are
 * refused at the edge with a 400 naming the field, before any model call is made or
 * billed; the gateway's model routes forward NUL in message text as the provider takes it.
 */
const folders = runtimeFolders({ echo: 'name: Echo\nmodel: openai/test-echo\ninstructions: Repeat.\n' });
let gateway: GatewayHarness;
let keys: Record<'model' | 'agent' | 'provisioning', string>;
let owner: ConsoleSession;

beforeAll(async () => {
  gateway = await startGateway(folders.env);
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  keys = { model: await gateway.key('model'), agent: await gateway.key('agent'), provisioning: await gateway.key('provisioning') };
  const link = await issueSetupLink(gateway.services.db, 'http://localhost', new Date());
  const token = new URL(String(link)).searchParams.get('token') as string;
  const setup = await gateway.app.inject({
    method: 'POST',
    url: '/console/api/setup',
    headers: { origin: ORIGIN, host: 'localhost:80' },
    payload: { token, email: 'owner@example.com', password: 'correct horse battery' },
  });
  owner = await sessionFrom(gateway.app, sessionCookieOf(setup));
});
afterAll(async () => {
  await gateway?.close();
  folders.remove();
});

const usageRows = async (): Promise<number> => {
  await gateway.settle();
  return Number((await gateway.services.db.query<{ count: string }>('SELECT count(*) AS count FROM usage_log')).rows[0]?.count);
};
const errorOf = (body: string) => (JSON.parse(body) as { error: { code: string; param: string | null; message: string } }).error;

describe(`NUL on the Agents API (${engineName()})`, () => {
  it.each([
    ['responses', '/agents/v1/responses', { model: 'echo', input: 'x\u0000y' }, 'input'],
    ['responses, streamed', '/agents/v1/responses', { model: 'echo', input: 'x\u0000y', stream: true }, 'input'],
    ['responses, in a content part', '/agents/v1/responses', { model: 'echo', input: [{ role: 'user', content: [{ type: 'input_text', text: 'a\u0000' }] }] }, 'input.0.content.0.text'],
    ['responses, in metadata', '/agents/v1/responses', { model: 'echo', input: 'hi', metadata: { note: '\u0000' } }, 'metadata.note'],
    ['chat', '/agents/v1/chat/completions', { model: 'echo', messages: [{ role: 'user', content: 'x\u0000y' }] }, 'messages.0.content'],
    ['chat, streamed', '/agents/v1/chat/completions', { model: 'echo', messages: [{ role: 'user', content: 'x\u0000y' }], stream: true }, 'messages.0.content'],
  ])('%s: 400 naming the field, before any model call, nothing billed', async (_name, url, payload, param) => {
    const upstreamBefore = gateway.openai.requests.length;
    const rowsBefore = await usageRows();
    const response = await gateway.app.inject({ method: 'POST', url, headers: bearer(keys.agent), payload });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response.body)).toMatchObject({ code: 'invalid_request', param });
    expect(errorOf(response.body).message).toContain('NUL');
    expect(gateway.openai.requests.length).toBe(upstreamBefore);
    expect(await usageRows()).toBe(rowsBefore);
    // The same turn without the NUL is answered.
    const clean = JSON.parse(JSON.stringify(payload).replaceAll('\\u0000', '')) as object;
    expect((await gateway.app.inject({ method: 'POST', url, headers: bearer(keys.agent), payload: clean })).statusCode).toBe(200);
  });
});

describe(`the Responses WebSocket (${engineName()})`, () => {
  it('applies the same rules to each message: NUL, lone surrogates and deep JSON are a 400 error event, before any model call', async () => {
    const socket = new WebSocket(`${gateway.baseUrl.replace('http', 'ws')}/agents/v1/responses`, { headers: bearer(keys.agent) });
    const messages: Array<{ type: string; status?: number; error?: { param: string | null; message: string } }> = [];
    const waiters: Array<() => void> = [];
    socket.on('message', (data) => {
      messages.push(JSON.parse(data.toString()) as (typeof messages)[number]);
      waiters.shift()?.();
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const turn = async (text: string) => {
      const from = messages.length;
      socket.send(text);
      for (;;) {
        const last = messages.slice(from).find((message) => ['error', 'response.completed', 'response.failed'].includes(message.type));
        if (last) return last;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };
    try {
      const upstreamBefore = gateway.openai.requests.length;
      const rowsBefore = await usageRows();
      expect(await turn('{"type":"response.create","model":"echo","input":"x\\u0000y"}')).toMatchObject({ type: 'error', status: 400, error: { param: 'input' } });
      expect(await turn('{"type":"response.create","model":"echo","input":[{"role":"user","content":"\\ud800"}]}')).toMatchObject({ type: 'error', status: 400, error: { param: 'input.0.content' } });
      const deep = await turn(`{"type":"response.create","model":"echo","input":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
      expect(deep).toMatchObject({ type: 'error', status: 400 });
      expect(deep.error?.message).toMatch(/deeper than 128 levels/);
      expect(gateway.openai.requests.length).toBe(upstreamBefore);
      expect(await usageRows()).toBe(rowsBefore);
      expect((await turn('{"type":"response.create","model":"echo","input":"xy"}')).type).toBe('response.completed');
    } finally {
      socket.close();
    }
  });
});

describe(`NUL in path parameters and query strings (${engineName()})`, () => {
  it.each([
    ['agent', 'GET', '/agents/v1/responses/%00', 'id'],
    ['agent', 'DELETE', '/agents/v1/responses/a%00b', 'id'],
    ['agent', 'POST', '/agents/v1/responses/%00/cancel', 'id'],
    ['agent', 'GET', '/agents/v1/models/%00', 'id'],
    ['agent', 'GET', '/agents/v1/conversations/%00', 'id'],
    ['model', 'GET', '/v1/generations/%00', 'id'],
    ['model', 'GET', '/v1/models/openai%2F%00', 'path'],
    ['provisioning', 'GET', '/v1/usage?model=%00', 'model'],
    ['provisioning', 'GET', '/v1/usage?limit=10&endpoint=%00', 'endpoint'],
    ['provisioning', 'GET', '/v1/keys/%00', 'id'],
    ['console', 'GET', '/console/api/usage/%00', 'id'],
    ['console', 'GET', '/console/api/usage?model=%00', 'model'],
    ['console', 'DELETE', '/console/api/keys/%00', 'id'],
    ['console', 'DELETE', '/console/api/agent-keys/%00', 'id'],
    ['none', 'GET', '/healthz?x=%00', 'x'],
  ] as const)('%s %s %s: 400 naming the parameter', async (credential, method, url, param) => {
    const response = credential === 'console' ? await owner.request(method, url) : await gateway.app.inject({ method, url, headers: credential === 'none' ? {} : bearer(keys[credential]) });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response.body)).toMatchObject({ code: 'invalid_request', param });
  });
});

describe(`NUL in console bodies (${engineName()})`, () => {
  it.each([
    ['an agent key name', 'POST', '/console/api/agent-keys', { name: 'a\u0000' }, 'name'],
    ['agent instructions', 'PUT', '/console/api/agents/nul-agent', { definition: { name: 'N', model: 'openai/test-echo', instructions: 'a\u0000b' } }, 'definition.instructions'],
    ['a change note', 'PUT', '/console/api/agents/nul-agent', { definition: { name: 'N', model: 'openai/test-echo', instructions: 'ok' }, change_note: '\u0000' }, 'change_note'],
    ['a key of a record', 'PUT', '/console/api/agents/nul-agent', { definition: { name: 'N', model: 'openai/test-echo', instructions: 'ok', 'x\u0000': 1 } }, 'definition.x\\u0000'],
  ])('%s: 400 naming the field, nothing stored', async (_name, method, url, payload, param) => {
    const response = await owner.request(method, url, payload);
    expect(response.statusCode).toBe(400);
    expect(errorOf(response.body)).toMatchObject({ code: 'invalid_request', param });
    expect((await owner.request('GET', '/console/api/agents/nul-agent')).statusCode).toBe(404);
  });
});

describe(`the gateway's model routes (${engineName()})`, () => {
  it('forward a NUL in message text to the provider and bill the call, but refuse it in a key they would store', async () => {
    const rowsBefore = await usageRows();
    const forwarded = await gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(keys.model),
      payload: { model: 'openai/test-echo', messages: [{ role: 'user', content: 'x\u0000y' }] },
    });
    expect(forwarded.statusCode).toBe(200);
    expect(JSON.stringify(gateway.openai.requests.at(-1)?.body)).toContain('x\\u0000y');
    expect(await usageRows()).toBe(rowsBefore + 1);
    const key = await gateway.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(keys.provisioning), payload: { name: 'k', allowed_models: ['openai/test-echo\u0000'] } });
    expect(key.statusCode).toBe(400);
    expect(errorOf(key.body).param).toBe('allowed_models.0');
  });
});

describe(`pass-through answers that echo unstorable text (${engineName()})`, () => {
  it("are answered whole, and the object they create stays its account's", async () => {
    const created = await gateway.app.inject({
      method: 'POST',
      url: '/v1/assistants',
      headers: { ...bearer(keys.model), 'content-type': 'application/json' },
      payload: '{"model":"openai/test-echo","metadata":{"k\\u0000":"v\\u0000","s":"\\ud83d"}}',
    });
    expect(created.statusCode).toBe(200);
    const id = created.json<{ id: string }>().id;
    expect((await gateway.app.inject({ url: `/v1/assistants/${id}`, headers: bearer(keys.model) })).statusCode).toBe(200);
  });
});

describe(`JSON nested 100,000 levels deep (${engineName()})`, () => {
  const deepArray = '['.repeat(100_000) + ']'.repeat(100_000);
  const deepObject = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
  it.each([
    ['agent', 'POST', '/agents/v1/responses', `{"model":"echo","input":${deepArray}}`],
    ['agent', 'POST', '/agents/v1/chat/completions', `{"model":"echo","messages":[{"role":"user","content":"x"}],"metadata":${deepObject}}`],
    [
      'model',
      'POST',
      '/v1/chat/completions',
      `{"model":"openai/test-echo","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":${deepObject}}}]}`,
    ],
    ['model', 'POST', '/v1/responses', `{"model":"openai/test-echo","input":${deepArray}}`],
    ['model', 'POST', '/v1beta/models/openai%2Ftest-echo:generateContent', `{"contents":${deepArray}}`],
    ['provisioning', 'POST', '/v1/keys', deepObject],
  ] as const)('%s %s %s: a 400 from the body parser, before any model call, and the server goes on', async (credential, method, url, payload) => {
    const upstreamCalls = gateway.openai.requests.length;
    const response = await gateway.app.inject({ method, url, headers: { ...bearer(keys[credential]), 'content-type': 'application/json' }, payload });
    expect(response.statusCode).toBe(400);
    // The edge's message: the body was refused by its depth scan, which stops at level 129, not walked further.
    expect(errorOf(response.body).message).toBe('The request body nests arrays and objects deeper than 128 levels.');
    expect(gateway.openai.requests.length).toBe(upstreamCalls);
    expect((await gateway.app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });
});

describe(`the backstop for what slips past the edge (${engineName()})`, () => {
  it('answers 400, not 500, when the database refuses a value from the request', async () => {
    const app = Fastify();
    registerErrorHandlers(app);
    app.get('/text/:value', async (request) => gateway.services.db.query('SELECT $1::text AS value', [(request.params as { value: string }).value]));
    app.get('/uuid/:value', async (request) => gateway.services.db.query('SELECT $1::uuid AS value', [(request.params as { value: string }).value]));
    app.get('/jsonb', async () => gateway.services.db.query('SELECT $1::jsonb AS value', ['{"a":"\\u0000"}']));
    app.get('/bug', async () => gateway.services.db.query('SELECT * FROM no_such_table'));
    try {
      for (const url of ['/text/a%00b', '/uuid/not-a-uuid', '/jsonb']) {
        const response = await app.inject({ url });
        expect(response.statusCode, url).toBe(400);
        expect(errorOf(response.body).code).toBe('invalid_request');
      }
      expect((await app.inject({ url: '/bug' })).statusCode).toBe(500);
    } finally {
      await app.close();
    }
  });
});
