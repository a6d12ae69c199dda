import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { FAKE_REASONING } from '../support/fake-openai-chat.ts';

/**
 * `POST /agents/v1/responses` against the Open Responses OpenAPI document itself:
 * every body and every streamed event is validated with the document's own component
 * schemas (loaded here, never copied), and every stream is checked for the spec's
 * ordering and lifecycle rules.
 */
// The team's reference copy beside the checkout (shared/) is the source of truth; a
// checkout on its own uses the copy of the same file in test/fixtures.
const SHARED_SPEC = resolve(import.meta.dirname, '../../../shared/reference/open-responses.openapi.json');
const SPEC_PATH = existsSync(SHARED_SPEC) ? SHARED_SPEC : resolve(import.meta.dirname, '../fixtures/open-responses/openapi.json');
const spec = JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as { components: { schemas: Record<string, { properties?: { type?: { enum?: string[] } }; oneOf?: unknown[] }> } };
// The spec's prose allows extension items whose type carries a provider prefix (`junction:tool_call`); its closed union does not say so.
spec.components.schemas.ItemField?.oneOf?.push({
  type: 'object',
  required: ['type', 'id', 'status'],
  properties: { type: { type: 'string', pattern: '^[a-z][a-z0-9_-]*:' }, id: { type: 'string' }, status: { type: 'string' } },
});
// The OpenAPI keywords (discriminator, example, x-*) are not JSON Schema: non-strict mode skips them.
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'open-responses', components: spec.components });
const validatorFor = (name: string): ValidateFunction => ajv.compile({ $ref: `open-responses#/components/schemas/${name}` });
const responseSchema = validatorFor('ResponseResource');
const eventSchemas = new Map(
  Object.entries(spec.components.schemas).flatMap(([name, schema]) => {
    const type = schema.properties?.type?.enum?.[0];
    return name.endsWith('StreamingEvent') && type ? [[type, validatorFor(name)] as const] : [];
  }),
);

type Item = { type: string; id: string; status?: string; [key: string]: unknown };
type ResponseBody = {
  id: string;
  status: string;
  output: Item[];
  usage: { cost: number; cost_details: { tool_cost: number }; output_tokens: number } | null;
  error: { code: string } | null;
  incomplete_details: { reason: string } | null;
  previous_response_id: string | null;
  [key: string]: unknown;
};
type Event = { type: string; sequence_number: number; [key: string]: unknown };

function expectValidResponse(body: unknown): ResponseBody {
  expect(responseSchema(body), JSON.stringify(responseSchema.errors)).toBe(true);
  return body as ResponseBody;
}

const dirs = mkdtempSync(join(tmpdir(), 'junction-responses-'));
let gateway: GatewayHarness;
let agentKey: string;

beforeAll(async () => {
  cpSync(join(import.meta.dirname, '../fixtures/agents-e2e/tools'), join(dirs, 'tools'), { recursive: true });
  cpSync(join(import.meta.dirname, '../fixtures/agents-e2e/agents'), join(dirs, 'agents'), { recursive: true });
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(dirs, 'agents'), JUNCTION_TOOLS_DIR: join(dirs, 'tools'), JUNCTION_KNOWLEDGE_DIR: join(dirs, 'knowledge') });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  agentKey = await gateway.key('agent');
});
afterAll(async () => {
  await gateway.close();
  rmSync(dirs, { recursive: true, force: true });
});

const post = (body: Record<string, unknown>, key = agentKey) =>
  fetch(`${gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function create(body: Record<string, unknown>): Promise<ResponseBody> {
  const response = await post(body);
  const json: unknown = await response.json();
  expect(response.status, JSON.stringify(json)).toBe(200);
  return expectValidResponse(json);
}

async function retrieve(id: string) {
  return fetch(`${gateway.baseUrl}/agents/v1/responses/${id}`, { headers: { authorization: `Bearer ${agentKey}` } });
}

/** Streams a response and checks the wire: `event:` = `type`, schema-valid events, `data: [DONE]` last. */
async function stream(body: Record<string, unknown>): Promise<{ events: Event[]; response: ResponseBody }> {
  const reply = await post({ ...body, stream: true });
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const frames = (await reply.text()).split('\n\n').filter((frame) => frame.trim() !== '');
  expect(frames.at(-1)).toBe('data: [DONE]');
  const events = frames.slice(0, -1).map((frame) => {
    const name = /^event: (.+)$/m.exec(frame)?.[1];
    const data = /^data: (.+)$/m.exec(frame)?.[1] ?? '';
    const event = JSON.parse(data) as Event;
    expect(name).toBe(event.type);
    const validate = eventSchemas.get(event.type);
    expect(validate, `no schema for ${event.type}`).toBeDefined();
    expect(validate?.(event), `${event.type}: ${JSON.stringify(validate?.errors)}`).toBe(true);
    return event;
  });
  checkLifecycle(events);
  const terminal = events.at(-1) as Event & { response: ResponseBody };
  return { events, response: expectValidResponse(terminal.response) };
}

/** The spec's ordering: created → in_progress → sequential items, each with its parts → one terminal event. */
function checkLifecycle(events: Event[]): void {
  events.forEach((event, index) => {
    if (index > 0) expect(event.sequence_number).toBeGreaterThan(events[index - 1]?.sequence_number ?? Infinity);
  });
  expect(events.slice(0, 2).map((event) => event.type)).toEqual(['response.created', 'response.in_progress']);
  const terminalTypes = ['response.completed', 'response.incomplete', 'response.failed'];
  const terminal = events.at(-1) as Event & { response: ResponseBody };
  expect(terminalTypes).toContain(terminal.type);
  expect(events.slice(0, -1).filter((event) => terminalTypes.includes(event.type))).toEqual([]);
  expect(terminal.response.status).toBe(terminal.type.replace('response.', ''));
  if (terminal.type === 'response.failed') expect(events.at(-2)?.type).toBe('error');

  const done: Item[] = [];
  let open: { id: string; index: number; parts: Set<number>; closedParts: Set<number>; text: Map<number, string> } | undefined;
  for (const event of events.slice(2, -1)) {
    if (event.type === 'error') continue;
    const item = event.item as Item | undefined;
    if (event.type === 'response.output_item.added') {
      expect(open, 'items are sequential: one open at a time').toBeUndefined();
      expect(event.output_index).toBe(done.length);
      open = { id: item?.id ?? '', index: done.length, parts: new Set(), closedParts: new Set(), text: new Map() };
      continue;
    }
    expect(open, `${event.type} outside an open item`).toBeDefined();
    if (!open) return;
    expect(event.output_index).toBe(open.index);
    if (event.type === 'response.output_item.done') {
      expect(item?.id).toBe(open.id);
      expect([...open.parts].every((part) => open?.closedParts.has(part))).toBe(true);
      done.push(item as Item);
      open = undefined;
      continue;
    }
    expect(event.item_id).toBe(open.id);
    const part = Number(event.content_index ?? -1);
    if (event.type === 'response.content_part.added') open.parts.add(part);
    else if (event.type === 'response.content_part.done') open.closedParts.add(part);
    else if (event.type.endsWith('.delta') && part >= 0) {
      expect(open.parts.has(part) && !open.closedParts.has(part), `${event.type} outside its content part`).toBe(true);
      open.text.set(part, (open.text.get(part) ?? '') + String(event.delta));
    } else if (event.type === 'response.output_text.done' || event.type === 'response.reasoning.done') {
      expect(event.text).toBe(open.text.get(part) ?? '');
    }
  }
  if (terminal.type !== 'response.failed') {
    expect(open).toBeUndefined();
    expect(terminal.response.output).toEqual(done);
    const incomplete = done.filter((item) => item.status === 'incomplete');
    if (incomplete.length > 0) {
      expect(done.at(-1)?.status, 'an incomplete item is the last one').toBe('incomplete');
      expect(terminal.type).toBe('response.incomplete');
    }
  }
}

const types = (events: Event[]) => events.map((event) => event.type);
const textOf = (item: Item | undefined) => (item?.content as Array<{ text: string }> | undefined)?.map((part) => part.text).join('') ?? '';
const lastUpstreamMessages = () => (gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown; tool_calls?: unknown[] }> }).messages;

describe('plain answers', () => {
  it('answers without streaming, echoes the effective settings, and is stored', async () => {
    const body = await create({ model: 'echo', input: 'hello agent', metadata: { ticket: '42' } });
    expect(body).toMatchObject({ status: 'completed', model: 'echo', previous_response_id: null, store: true, metadata: { ticket: '42' }, temperature: 1, tool_choice: 'auto', error: null });
    expect(body.output).toHaveLength(1);
    expect(body.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(textOf(body.output[0])).toBe('hello agent');
    expect(body.usage?.cost).toBeGreaterThan(0);
    const stored = await retrieve(body.id);
    expect(stored.status).toBe(200);
    expect(expectValidResponse(await stored.json())).toEqual(body);
  });

  it('streams the text in the spec order', async () => {
    const { events, response } = await stream({ model: 'echo', input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'stream me please' }] }] });
    expect(types(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...types(events).filter((type) => type === 'response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(textOf(response.output[0])).toBe('stream me please');
    expect(response.usage?.output_tokens).toBe(3);
  });

  it('streams reasoning as a reasoning item before the answer', async () => {
    const { events, response } = await stream({ model: 'thinker', input: 'ponder this' });
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(textOf(response.output[0])).toBe(FAKE_REASONING);
    expect(textOf(response.output[1])).toBe('ponder this');
    expect(types(events)).toContain('response.reasoning.delta');
    expect(response.reasoning).toEqual({ effort: 'low', summary: null });
  });
});

describe('tool steps', () => {
  it('streams a server-side tool step as it happens: one junction:tool_call item open while the tool runs, done with its output, billed', async () => {
    const { events, response } = await stream({ model: 'helper', input: 'shout it' });
    expect(response.output.map((item) => item.type)).toEqual(['junction:tool_call', 'message']);
    const [call, answer] = response.output;
    expect(call).toMatchObject({ name: 'echo_upper', arguments: '{"text":"fake"}', output: 'FAKE', status: 'completed' });
    expect(textOf(answer)).toBe('Tool echo_upper returned: FAKE');
    const callEvents = events.filter((event) => event.item_id === call?.id || (event.item as Item | undefined)?.id === call?.id).map((event) => event.type);
    expect(callEvents).toEqual(['response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done']);
    expect(response.usage?.cost_details.tool_cost).toBe(0.002);

    await gateway.settle();
    const rows = await gateway.services.db.query<{ cost_micros: number; agent_run_id: string }>(`SELECT cost_micros, agent_run_id FROM usage_log WHERE agent_id = 'helper' ORDER BY created_at`);
    const run = rows.rows.filter((row) => row.agent_run_id === rows.rows.at(-1)?.agent_run_id);
    expect(Math.round((response.usage?.cost ?? 0) * 1e6)).toBe(run.reduce((sum, row) => sum + Number(row.cost_micros), 0));
  });

  it('ends at a client function call and resumes from its output via previous_response_id', async () => {
    const tools = [{ type: 'function', name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
    const { events, response: first } = await stream({ model: 'delegator', input: 'weather in Paris?', tools });
    expect(first.status).toBe('completed');
    expect(first.output).toHaveLength(1);
    const call = first.output[0];
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"fake"}', status: 'completed' });
    expect(types(events)).toContain('response.function_call_arguments.delta');
    expect(first.tools).toEqual([{ ...tools[0], strict: null }]);

    const second = await create({ model: 'delegator', previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: call?.call_id, output: 'sunny' }], tools });
    expect(second.previous_response_id).toBe(first.id);
    expect(textOf(second.output[0])).toBe('Tool get_weather returned: sunny');
    expect(
      lastUpstreamMessages()
        .slice(1)
        .map((message) => message.role),
    ).toEqual(['user', 'assistant', 'tool']);
  });
});

describe('continuations and storage', () => {
  it('continues with the earlier input and output, then the new input', async () => {
    const first = await create({ model: 'echo', input: 'one' });
    const second = await create({ model: 'echo', input: 'two', previous_response_id: first.id });
    expect(
      lastUpstreamMessages()
        .slice(1)
        .map((message) => `${message.role}:${String(message.content)}`),
    ).toEqual(['user:one', 'assistant:one', 'user:two']);
    expect(textOf(second.output[0])).toBe('two');
  });

  it('resolves item references against the previous response output', async () => {
    const first = await create({ model: 'echo', input: 'alpha' });
    await create({
      model: 'echo',
      previous_response_id: first.id,
      input: [
        { type: 'item_reference', id: first.output[0]?.id },
        { role: 'user', content: 'beta' },
      ],
    });
    expect(
      lastUpstreamMessages()
        .slice(1)
        .map((message) => `${message.role}:${String(message.content)}`),
    ).toEqual(['user:alpha', 'assistant:alpha', 'assistant:alpha', 'user:beta']);
    const unknown = await post({ model: 'echo', previous_response_id: first.id, input: [{ type: 'item_reference', id: 'msg_nope' }] });
    expect(await unknown.json()).toMatchObject({ error: { code: 'invalid_request', param: 'input.0.id' } });
  });

  it('404s an unknown previous_response_id with previous_response_not_found', async () => {
    const reply = await post({ model: 'echo', input: 'x', previous_response_id: 'resp_unknown' });
    expect(reply.status).toBe(404);
    expect(await reply.json()).toMatchObject({ error: { code: 'previous_response_not_found', param: 'previous_response_id' } });
  });

  it('honours store: false: nothing to fetch or continue', async () => {
    const body = await create({ model: 'echo', input: 'forget me', store: false });
    expect(body.store).toBe(false);
    expect((await retrieve(body.id)).status).toBe(404);
    const reply = await post({ model: 'echo', input: 'x', previous_response_id: body.id });
    expect(await reply.json()).toMatchObject({ error: { code: 'previous_response_not_found' } });
  });
});

describe('ends other than completed', () => {
  it('ends incomplete when max_output_tokens runs out', async () => {
    const words = Array.from({ length: 30 }, (_, index) => `word${index}`).join(' ');
    const { response } = await stream({ model: 'echo', input: words, max_output_tokens: 16 });
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 16 });
    expect(response.output.at(-1)?.status).toBe('incomplete');
    expect(textOf(response.output.at(-1)).split(' ')).toHaveLength(16);
    expect(expectValidResponse(await (await retrieve(response.id)).json())).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });

  it('sends error then response.failed when the upstream breaks mid-stream', async () => {
    const { events, response } = await stream({ model: 'flaky', input: 'say something long enough to stream' });
    expect(types(events).slice(-2)).toEqual(['error', 'response.failed']);
    expect(types(events)).toContain('response.output_text.delta');
    expect(response.error?.code).toBeTruthy();
    expect(expectValidResponse(await (await retrieve(response.id)).json()).status).toBe('failed');

    const plain = await post({ model: 'flaky', input: 'not streamed' });
    expect(plain.status).toBeGreaterThanOrEqual(500);
    expect(await plain.json()).toMatchObject({ error: { type: 'api_error' } });
  });

  it("reports in the failed response's usage what its broken step was billed", async () => {
    await gateway.settle();
    const before = await gateway.services.db.query<{ id: string }>(`SELECT id FROM usage_log WHERE agent_id = 'flaky'`);
    const { response } = await stream({ model: 'flaky', input: 'say something long enough to be billed' });
    expect(response.status).toBe('failed');
    await gateway.settle();
    const billed = await gateway.services.db.query<{ cost: number; output: number }>(
      `SELECT COALESCE(sum(cost_micros), 0)::bigint AS cost, COALESCE(sum(output_tokens), 0)::int AS output FROM usage_log
       WHERE agent_id = 'flaky' AND NOT (id = ANY($1::text[]))`,
      [before.rows.map((entry) => entry.id)],
    );
    const row = billed.rows[0] ?? { cost: 0, output: 0 };
    expect(row.cost).toBeGreaterThan(0);
    expect(response.usage?.output_tokens).toBe(row.output);
    expect(Math.round((response.usage?.cost ?? 0) * 1e6)).toBe(row.cost);
    // The stored response says the same.
    const stored = expectValidResponse(await (await retrieve(response.id)).json());
    expect(stored.usage?.cost).toBe(response.usage?.cost);
  });
});

describe('assistant phase', () => {
  it('marks text written before a tool call as commentary and the answer as final_answer', async () => {
    writeFileSync(join(dirs, 'agents', 'narrator.yaml'), 'name: Narrator\nmodel: openai/test-narrated-tool\ninstructions: Say what you do.\ntools: [echo_upper]\n');
    await gateway.services.agentDirectory?.files.reload();
    for (const streamed of [false, true]) {
      const response = streamed ? (await stream({ model: 'narrator', input: 'shout it' })).response : await create({ model: 'narrator', input: 'shout it' });
      const messages = response.output.filter((item) => item.type === 'message');
      expect(messages.map((item) => [textOf(item), item.phase])).toEqual([
        ['Let me check.', 'commentary'],
        [expect.stringMatching(/^Tool echo_upper returned: /), 'final_answer'],
      ]);
    }
    expect((await create({ model: 'echo', input: 'plain' })).output.at(-1)?.phase).toBe('final_answer');
  });
});

describe('requests', () => {
  it.each([
    [{ background: true, store: false }, 'store'],
    [{ include: ['reasoning.encrypted_content'] }, 'include'],
    [{ tools: [{ type: 'web_search' }] }, 'tools.0.type'],
    [{ conversation: 'conv_1', previous_response_id: 'resp_1' }, 'conversation'], // one or the other names where it continues
    [{ top_p: 0.5 }, 'top_p'],
    [{ tool_choice: { type: 'allowed_tools', tools: [] } }, 'tool_choice'],
    [{ input: [{ type: 'compaction', encrypted_content: 'x' }] }, 'input.0.encrypted_content'], // not one this server sealed
  ])('refuses an unsupported field with a 400 naming it: %j', async (extra, param) => {
    const reply = await post({ model: 'echo', input: 'x', ...extra });
    expect(reply.status).toBe(400);
    expect(await reply.json()).toMatchObject({ error: { type: 'invalid_request_error', param } });
  });

  it('serves the official openai client, streaming and retrieving', async () => {
    const client = new OpenAI({ apiKey: agentKey, baseURL: `${gateway.baseUrl}/agents/v1`, maxRetries: 0 });
    const seen: string[] = [];
    for await (const event of await client.responses.create({ model: 'helper', input: 'shout it', stream: true })) seen.push(event.type);
    expect(seen.at(-1)).toBe('response.completed');
    const created = await client.responses.create({ model: 'echo', input: 'sdk' });
    expect(created.output_text).toBe('sdk');
    expect((await client.responses.retrieve(created.id)).id).toBe(created.id);
    const modelKey = await gateway.key('model');
    expect((await post({ model: 'echo', input: 'x' }, modelKey)).status).toBe(403);
  });

  it('deletes with the official client, and with the empty JSON body the Python client sends', async () => {
    const client = new OpenAI({ apiKey: agentKey, baseURL: `${gateway.baseUrl}/agents/v1`, maxRetries: 0 });
    const first = await client.responses.create({ model: 'echo', input: 'one' });
    await client.responses.delete(first.id);
    await expect(client.responses.retrieve(first.id)).rejects.toMatchObject({ status: 404 });
    // openai-python labels every request JSON, body or not: `responses.delete(id)`.
    const second = await client.responses.create({ model: 'echo', input: 'two' });
    const pythonStyle = { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' };
    const deleted = await fetch(`${gateway.baseUrl}/agents/v1/responses/${second.id}`, { method: 'DELETE', headers: pythonStyle });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id: second.id, object: 'response', deleted: true });
    // A POST that needs a body still says so.
    const empty = await fetch(`${gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: pythonStyle });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ error: { message: 'The request body is empty; send a JSON object.' } });
  });
});

const wsErrorSchema = validatorFor('WebSocketErrorEvent');
const wsCreateSchema = validatorFor('WebSocketResponseCreateEvent');
type Message = Event & { status?: number; error?: { code: string; message: string; param?: string | null }; response?: ResponseBody };

/**
 * A WebSocket on /agents/v1/responses; `next()` resolves the messages through the next
 * terminal event or turn error. Every message is validated against the spec as it arrives.
 */
async function connect(key = agentKey) {
  const socket = new WebSocket(`${gateway.baseUrl.replace('http', 'ws')}/agents/v1/responses`, { headers: { authorization: `Bearer ${key}` } });
  const received: Message[] = [];
  let wake = () => {};
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as Message;
    // Every message a socket receives is checked against the spec's schema for its type.
    const validate = message.type === 'error' ? wsErrorSchema : eventSchemas.get(message.type);
    expect(validate?.(message), `${message.type}: ${JSON.stringify(validate?.errors)}`).toBe(true);
    received.push(message);
    wake();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let read = 0;
  const next = async (): Promise<Message[]> => {
    const isEnd = (message: Message) => ['response.completed', 'response.incomplete', 'response.failed'].includes(message.type) || (message.type === 'error' && message.sequence_number === undefined);
    for (;;) {
      const end = received.findIndex((message, index) => index >= read && isEnd(message));
      if (end >= 0) {
        const turn = received.slice(read, end + 1);
        read = end + 1;
        return turn;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  const create = (body: Record<string, unknown>) => {
    const message = { type: 'response.create', ...body };
    expect(wsCreateSchema(message), JSON.stringify(wsCreateSchema.errors)).toBe(true);
    socket.send(JSON.stringify(message));
  };
  return { socket, create, next, sendRaw: (text: string) => socket.send(text) };
}

describe('WebSocket mode', () => {
  /** A turn's events as the SSE stream would have them: each valid against the spec, in the spec's order. */
  function expectValidTurn(turn: Message[]): ResponseBody {
    for (const event of turn) {
      const validate = event.type === 'error' ? wsErrorSchema : eventSchemas.get(event.type);
      expect(validate?.(event), `${event.type}: ${JSON.stringify(validate?.errors)}`).toBe(true);
    }
    checkLifecycle(turn);
    return expectValidResponse(turn.at(-1)?.response);
  }

  it('runs one response per message, in order, on one connection, billed like any run', async () => {
    await gateway.settle();
    const billed = async () =>
      (
        await gateway.services.db.query<{ n: number; cost: number }>(
          `SELECT count(*)::int AS n, COALESCE(sum(cost_micros), 0)::bigint AS cost FROM usage_log WHERE endpoint IN ('agents.responses', 'agents.tool')`,
        )
      ).rows[0] ?? { n: 0, cost: 0 };
    const before = await billed();
    const connection = await connect();
    // Sent back to back: the second waits for the first to end.
    connection.create({ model: 'echo', input: 'first over the socket' });
    connection.create({ model: 'helper', input: 'shout it' });
    const first = expectValidTurn(await connection.next());
    expect(first.status).toBe('completed');
    expect(textOf(first.output.at(-1))).toBe('first over the socket');
    const secondTurn = await connection.next();
    const second = expectValidTurn(secondTurn);
    expect(second.id).not.toBe(first.id);
    expect(types(secondTurn)).toContain('response.function_call_arguments.done');
    expect(second.output.map((item) => item.type)).toEqual(['junction:tool_call', 'message']);
    // Stored and continued like an HTTP response.
    connection.create({ model: 'echo', input: 'and again', previous_response_id: first.id });
    const third = expectValidTurn(await connection.next());
    expect(third.previous_response_id).toBe(first.id);
    expect(lastUpstreamMessages().map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    connection.socket.close();
    await gateway.settle();
    const after = await billed();
    expect(after.n - before.n).toBe(5); // one step; two steps and a tool call; one step
    const reported = [first, second, third].reduce((sum, response) => sum + Math.round((response.usage?.cost ?? 0) * 1e6), 0);
    expect(after.cost - before.cost).toBe(reported);
  });

  it('answers a bad message or a failed run with an error event and keeps the connection', async () => {
    const connection = await connect();
    connection.sendRaw('not json');
    const [notJson] = await connection.next();
    expect(wsErrorSchema(notJson)).toBe(true);
    expect(notJson).toMatchObject({ type: 'error', status: 400, error: { code: 'invalid_request' } });
    connection.sendRaw(JSON.stringify({ type: 'response.create', model: 'echo', input: 'x', stream: true }));
    expect((await connection.next())[0]).toMatchObject({ type: 'error', status: 400, error: { param: 'stream' } });
    connection.create({ model: 'echo', input: 'x', previous_response_id: 'resp_unknown' });
    expect((await connection.next())[0]).toMatchObject({ type: 'error', status: 404, error: { code: 'previous_response_not_found' } });
    connection.create({ model: 'nobody', input: 'x' });
    expect((await connection.next())[0]).toMatchObject({ type: 'error', status: 404, error: { code: 'model_not_found' } });
    // A run that breaks midway: the socket's error event (with its status), then response.failed.
    const failed = await (async () => {
      connection.create({ model: 'flaky', input: 'say something long enough to stream' });
      let turn = await connection.next();
      if (turn.at(-1)?.type === 'error') turn = [...turn, ...(await connection.next())];
      return turn;
    })();
    expect(types(failed).slice(-2)).toEqual(['error', 'response.failed']);
    expect(wsErrorSchema(failed.at(-2))).toBe(true);
    // Still open: the next message runs.
    connection.create({ model: 'echo', input: 'still here' });
    expect(textOf(expectValidTurn(await connection.next()).output.at(-1))).toBe('still here');
    connection.socket.close();
  });

  it('cancels the response under way when the socket closes, billed for what it used', async () => {
    writeFileSync(join(dirs, 'agents', 'slow.yaml'), 'name: Slow\nmodel: openai/test-slow\ninstructions: Take your time.\n');
    await gateway.services.agentDirectory?.files.reload();
    await gateway.settle();
    const connection = await connect();
    const streaming = new Promise<void>((resolve) => connection.socket.on('message', (data) => String(data).includes('response.output_text.delta') && resolve()));
    connection.create({ model: 'slow', input: 'a long answer please' });
    await streaming;
    connection.socket.close();
    const row = async () =>
      (await gateway.services.db.query<{ status: string; cost: number }>(`SELECT status, cost_micros::bigint AS cost FROM usage_log WHERE agent_id = 'slow' ORDER BY created_at DESC LIMIT 1`)).rows[0];
    await expect
      .poll(
        async () => {
          await gateway.settle();
          return (await row())?.status;
        },
        { timeout: 10_000 },
      )
      .toBe('client_closed');
    expect((await row())?.cost).toBeGreaterThan(0);
  });

  it("applies the key's limits per response", async () => {
    const limited = await connect(await gateway.key('agent', { totalLimitMicros: 1 }));
    limited.create({ model: 'echo', input: 'too expensive for this key' });
    const turn = await limited.next();
    const error = turn.find((message) => message.type === 'error');
    expect(wsErrorSchema(error), JSON.stringify(wsErrorSchema.errors)).toBe(true);
    expect(error).toMatchObject({ status: 403, error: { code: 'key_limit_exceeded' } });
    expect(turn.at(-1)?.type).toBe('response.failed');
    limited.socket.close();
  });

  it('checks the key at the upgrade: no key, or a key of another kind, gets no socket', async () => {
    const refused = (key: string | undefined) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(`${gateway.baseUrl.replace('http', 'ws')}/agents/v1/responses`, key ? { headers: { authorization: `Bearer ${key}` } } : {});
        socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        socket.on('open', () => resolve(101));
      });
    expect(await refused(undefined)).toBe(401);
    expect(await refused(await gateway.key('model'))).toBe(403);
  });
});

describe('store: false and generate: false', () => {
  type Turn = Message[];
  /** A connection whose `turn(body)` sends one response.create and resolves its messages. */
  async function socket() {
    const connection = await connect();
    return {
      ws: connection.socket,
      turn: async (body: Record<string, unknown>): Promise<Turn> => {
        connection.create(body);
        return connection.next();
      },
    };
  }
  const finalResponse = (turn: Turn) => expectValidResponse(turn.at(-1)?.response);

  it('keeps a store: false response in the connection only, continued with just the new input', async () => {
    const { ws, turn } = await socket();
    const first = finalResponse(await turn({ model: 'echo', input: 'remember the word pelican', store: false }));
    expect((await retrieve(first.id)).status).toBe(404); // never stored
    const second = finalResponse(await turn({ model: 'echo', input: 'which word?', previous_response_id: first.id, store: false }));
    expect(second.previous_response_id).toBe(first.id);
    const sent = lastUpstreamMessages();
    expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.stringify(sent)).toContain('remember the word pelican');
    // Stored continuations of it are refused: its history was never stored.
    expect((await turn({ model: 'echo', input: 'x', previous_response_id: second.id }))[0]).toMatchObject({ type: 'error', status: 400, error: { param: 'store' } });
    ws.close();
    // Another connection (or HTTP) does not know it.
    const other = await socket();
    expect((await other.turn({ model: 'echo', input: 'x', previous_response_id: second.id, store: false }))[0]).toMatchObject({
      type: 'error',
      status: 404,
      error: { code: 'previous_response_not_found' },
    });
    other.ws.close();
  });

  it('forgets a store: false response whose continuation failed: the retry gets previous_response_not_found', async () => {
    const { ws, turn } = await socket();
    const first = finalResponse(await turn({ model: 'echo', input: 'hello', store: false }));
    // The run breaks midway: the socket's error event, then response.failed.
    const failed = await turn({ model: 'flaky', input: 'say something long enough to stream', previous_response_id: first.id, store: false });
    expect(types(failed).slice(-2)).toEqual(['error', 'response.failed']);
    const retry = await turn({ model: 'echo', input: 'again', previous_response_id: first.id, store: false });
    expect(retry[0]).toMatchObject({ type: 'error', status: 404, error: { code: 'previous_response_not_found' } });
    ws.close();
  });

  it('warms up with generate: false (no model call, no output, nothing billed) and chains from it, over HTTP and the socket', async () => {
    const calls = gateway.openai.requests.length;
    const warm = await create({ model: 'echo', input: 'context: the order is 7', generate: false });
    expect(warm).toMatchObject({ status: 'completed', output: [], usage: { input_tokens: 0, output_tokens: 0, cost: 0 } });
    expect(gateway.openai.requests.length).toBe(calls);
    const next = await create({ model: 'echo', input: 'which order?', previous_response_id: warm.id });
    expect(next.previous_response_id).toBe(warm.id);
    expect(lastUpstreamMessages().map((message) => message.role)).toEqual(['system', 'user', 'user']);
    expect(JSON.stringify(lastUpstreamMessages())).toContain('context: the order is 7');

    const { ws, turn } = await socket();
    const warmTurn = await turn({ model: 'echo', input: 'context over the socket', generate: false, store: false });
    expect(types(warmTurn)).toEqual(['response.created', 'response.in_progress', 'response.completed']);
    const chained = finalResponse(await turn({ model: 'echo', input: 'go', previous_response_id: finalResponse(warmTurn).id, store: false }));
    expect(chained.status).toBe('completed');
    expect(JSON.stringify(lastUpstreamMessages())).toContain('context over the socket');
    ws.close();
  });
});

describe('compaction', () => {
  const compactSchema = validatorFor('CompactResource');
  const compact = (body: Record<string, unknown>, key = agentKey) =>
    fetch(`${gateway.baseUrl}/agents/v1/responses/compact`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('compacts a conversation into a sealed item the next request carries instead, billed as a model call', async () => {
    const first = await create({ model: 'echo', input: 'the code word is heron' });
    await gateway.settle();
    const billedBefore = await gateway.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM usage_log WHERE endpoint = 'agents.responses.compact'`);
    const reply = await compact({ model: 'echo', previous_response_id: first.id });
    const compacted = (await reply.json()) as { object: string; output: Array<{ type: string; encrypted_content: string }>; usage: { cost: number; input_tokens: number } };
    expect(reply.status, JSON.stringify(compacted)).toBe(200);
    expect(compactSchema(compacted), JSON.stringify(compactSchema.errors)).toBe(true);
    expect(compacted.object).toBe('response.compaction');
    const [item] = compacted.output;
    expect(item?.type).toBe('compaction');
    // The summary is the agent's model's (the fake echoes the compaction request); what travels is sealed.
    const summaryRequest = lastUpstreamMessages();
    expect(JSON.stringify(summaryRequest)).toContain('the code word is heron');
    expect(item?.encrypted_content).not.toContain('heron');
    expect(compacted.usage.cost).toBeGreaterThan(0);
    await gateway.settle();
    const billedAfter = await gateway.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM usage_log WHERE endpoint = 'agents.responses.compact'`);
    expect((billedAfter.rows[0]?.n ?? 0) - (billedBefore.rows[0]?.n ?? 0)).toBe(1);

    // Passed back as is, it stands in for the earlier context as one user turn, stored and continued like one.
    const next = await create({ model: 'echo', input: [item, { role: 'user', content: 'what is the code word?' }] });
    const sent = lastUpstreamMessages();
    expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'user']);
    expect(JSON.stringify(sent[1]?.content)).toContain('Summary of our conversation so far (compacted)');
    expect(JSON.stringify(sent[1]?.content)).toContain('Compact the conversation above'); // the fake model's "summary", unsealed
    await create({ model: 'echo', input: 'and then?', previous_response_id: next.id });
    expect(JSON.stringify(lastUpstreamMessages())).toContain('Summary of our conversation so far (compacted)');
  });

  it('refuses an altered item, or one sealed for another account, and an empty context', async () => {
    const first = await create({ model: 'echo', input: 'something to compact' });
    const compacted = (await (await compact({ model: 'echo', previous_response_id: first.id })).json()) as { output: Array<{ type: string; encrypted_content: string }> };
    const item = compacted.output[0] as { type: string; encrypted_content: string };
    const altered = { ...item, encrypted_content: `${item.encrypted_content.slice(0, -2)}AA` };
    const tampered = await post({ model: 'echo', input: [altered, { role: 'user', content: 'x' }] });
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toMatchObject({ error: { param: 'input.0.encrypted_content' } });

    const other = (await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'compaction-other' })) as { data: { id: string } };
    await runAdminCommand(gateway.services, { command: 'credits.grant', account: other.data.id, amount: '1', currency: 'USD' });
    const otherKey = await gateway.key('agent', {}, other.data.id);
    writeFileSync(join(dirs, 'agents', 'other-echo.yaml'), `account: compaction-other\nname: Echo\nmodel: openai/test-echo\ninstructions: Repeat.\n`);
    await gateway.services.agentDirectory?.files.reload();
    const foreign = await post({ model: 'other-echo', input: [item, { role: 'user', content: 'x' }] }, otherKey);
    expect(foreign.status).toBe(400);
    expect(await foreign.json()).toMatchObject({ error: { param: 'input.0.encrypted_content' } });

    const empty = await compact({ model: 'echo' });
    expect(empty.status).toBe(400);
  });
});
