import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';
import { clientCalls } from './support/client-call.ts';

/** The official `openai` client as its README shows it, with only baseURL and apiKey changed. */
const call = clientCalls('openai');
let gateway: GatewayHarness;
let client: OpenAI;
/** The same client on the Agents API, where `model` names an agent. */
let agents: OpenAI;
const folders = runtimeFolders({ echo: 'name: Echo\nmodel: openai/test-echo\ninstructions: Repeat what you are told.\n' });

beforeAll(async () => {
  const { JUNCTION_AGENTS_DIR, JUNCTION_TOOLS_DIR, JUNCTION_KNOWLEDGE_DIR } = folders.env;
  gateway = await startGateway({ JUNCTION_AGENTS_DIR, JUNCTION_TOOLS_DIR, JUNCTION_KNOWLEDGE_DIR });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  client = new OpenAI({ apiKey: await gateway.key('model'), baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
  agents = new OpenAI({ apiKey: await gateway.key('agent'), baseURL: `${gateway.baseUrl}/agents/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gateway.close();
  folders.remove();
});

const lookupOrder: OpenAI.ChatCompletionFunctionTool = {
  type: 'function',
  function: { name: 'lookup_order', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } },
};

describe('openai chat completions', () => {
  it('answers and streams', async () => {
    const completion = await call('chat.completions.create', () => client.chat.completions.create({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'hello openai' }] }));
    expect(completion.choices[0]?.message.content).toBe('hello openai');
    const stream = await call('chat.completions.create (stream)', () =>
      client.chat.completions.create({ model: 'anthropic/test-echo', messages: [{ role: 'user', content: 'stream these words' }], stream: true }),
    );
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('stream these words');
  });

  it('round-trips a tool call on each provider, the tool result carrying its name', async () => {
    for (const model of ['openai/test-tool', 'anthropic/test-tool', 'google/test-tool']) {
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Where is order 42?' }];
      const first = await call(`chat.completions.create (tools, ${model})`, () => client.chat.completions.create({ model, messages, tools: [lookupOrder] }));
      const assistant = first.choices[0]?.message;
      const toolCall = assistant?.tool_calls?.[0];
      if (!assistant || toolCall?.type !== 'function') throw new Error(`${model}: no tool call`);
      // `name` beside tool_call_id is what LangChain and older clients send.
      const result = { role: 'tool', tool_call_id: toolCall.id, name: toolCall.function.name, content: 'shipped yesterday' } as OpenAI.ChatCompletionToolMessageParam;
      const second = await call(`chat.completions.create (tool result, ${model})`, () => client.chat.completions.create({ model, messages: [...messages, assistant, result], tools: [lookupOrder] }));
      expect(second.choices[0]?.message.content, model).toContain('shipped yesterday');
    }
  });

  it('parses structured output with zodResponseFormat', async () => {
    const Place = z.object({ city: z.string() });
    const completion = await call('chat.completions.parse', () =>
      client.chat.completions.parse({ model: 'openai/test-echo', messages: [{ role: 'user', content: '{"city":"Lyon"}' }], response_format: zodResponseFormat(Place, 'place') }),
    );
    expect(completion.choices[0]?.message.parsed).toEqual({ city: 'Lyon' });
    expect(gateway.openai.requests.at(-1)?.body).toMatchObject({ response_format: { type: 'json_schema', json_schema: { name: 'place' } } });
  });

  it('embeds', async () => {
    const result = await call('embeddings.create', () => client.embeddings.create({ model: 'openai/test-native-embed', input: ['embed me', 'and me'] }));
    expect(result.data.length).toBe(2);
  });

  it('a field Junction does not know reaches an OpenAI upstream, and is named when it cannot', async () => {
    const params = { model: 'openai/test-echo', messages: [{ role: 'user', content: 'new field' }], prompt_cache_retention: '24h' } as OpenAI.ChatCompletionCreateParamsNonStreaming;
    const same = await call('chat.completions.create (unknown field, OpenAI model)', () => client.chat.completions.create(params).withResponse());
    expect(gateway.openai.requests.at(-1)?.body).toMatchObject({ prompt_cache_retention: '24h' });
    expect(same.response.headers.get('x-junction-dropped-params')).toBeNull();
    const other = await call('chat.completions.create (unknown field, Anthropic model)', () => client.chat.completions.create({ ...params, model: 'anthropic/test-echo' }).withResponse());
    expect(other.data.choices[0]?.message.content).toBe('new field');
    expect(other.response.headers.get('x-junction-dropped-params')).toBe('prompt_cache_retention');
    expect(gateway.anthropic.requests.at(-1)?.body).not.toHaveProperty('prompt_cache_retention');
  });
});

describe('openai responses on the Agents API', () => {
  it('lists the input items a response was created with, newest first, and pages them', async () => {
    const input: OpenAI.Responses.ResponseInputItem[] = [
      { role: 'user', content: 'first question' },
      { role: 'user', content: 'second question' },
    ];
    const response = await call('responses.create', () => agents.responses.create({ model: 'echo', input }));
    const items = await call('responses.inputItems.list', () => agents.responses.inputItems.list(response.id));
    expect(items.data.map((item) => (item.type === 'message' ? item.content : null))).toEqual([[{ type: 'input_text', text: 'second question' }], [{ type: 'input_text', text: 'first question' }]]);
    const firstPage = await call('responses.inputItems.list (limit 1, asc)', () => agents.responses.inputItems.list(response.id, { limit: 1, order: 'asc' }));
    expect(firstPage.hasNextPage()).toBe(true);
    const rest = await call('responses.inputItems.list (next page)', () => firstPage.getNextPage());
    expect(rest.data.map((item) => item.id)).toEqual([items.data[0]?.id]);
    await expect(agents.responses.inputItems.list('resp_unknown')).rejects.toMatchObject({ status: 404 });
  });

  it('counts the input tokens of a request, its history included, without running it', async () => {
    const short = await call('responses.inputTokens.count', () => agents.responses.inputTokens.count({ model: 'echo', input: 'hello' }));
    expect(short.object).toBe('response.input_tokens');
    expect(short.input_tokens).toBeGreaterThan(0);
    const first = await call('responses.create', () => agents.responses.create({ model: 'echo', input: 'a much longer sentence for the history to carry along' }));
    const continued = await call('responses.inputTokens.count (previous_response_id)', () => agents.responses.inputTokens.count({ model: 'echo', input: 'hello', previous_response_id: first.id }));
    expect(continued.input_tokens).toBeGreaterThan(short.input_tokens + 10);
    await gateway.settle();
    const rows = await gateway.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM usage_log WHERE endpoint LIKE 'agents.responses%'`);
    expect(rows.rows[0]?.n).toBe(2); // the two created responses; counting bills nothing
  });

  it('keeps state in a conversation: created, joined by responses, read and deleted', async () => {
    const conversation = await call('conversations.create', () => agents.conversations.create({ metadata: { topic: 'orders' } }));
    expect(conversation).toMatchObject({ object: 'conversation', metadata: { topic: 'orders' } });
    expect(conversation.id).toMatch(/^conv_/);
    await call('responses.create (conversation)', () => agents.responses.create({ model: 'echo', input: 'remember the number 7', conversation: conversation.id }));
    const second = await call('responses.create (conversation, again)', () => agents.responses.create({ model: 'echo', input: 'what was it?', conversation: { id: conversation.id } }));
    expect(second.output_text).toBe('what was it?');
    const sent = gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string }> };
    expect(sent.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    const items = await call('conversations.items.list', () => agents.conversations.items.list(conversation.id, { order: 'asc' }));
    const texts = items.data.map((item) => (item.type === 'message' ? item.content.map((part) => ('text' in part ? part.text : '')).join('') : item.type));
    expect(texts).toEqual(['remember the number 7', 'remember the number 7', 'what was it?', 'what was it?']);
    expect(items.data.map((item) => (item.type === 'message' ? item.role : null))).toEqual(['user', 'assistant', 'user', 'assistant']);
    const first = items.data[0];
    const firstId = first?.id;
    if (!firstId) throw new Error('no items');
    const one = await call('conversations.items.retrieve', () => agents.conversations.items.retrieve(firstId, { conversation_id: conversation.id }));
    expect(one).toEqual(first);
    const added = await call('conversations.items.create', () => agents.conversations.items.create(conversation.id, { items: [{ type: 'message', role: 'user', content: 'and one more thing' }] }));
    expect(added.data.map((item) => item.type)).toEqual(['message']);
    await call('responses.create (conversation, after added items)', () => agents.responses.create({ model: 'echo', input: 'go on', conversation: conversation.id }));
    const afterAdd = gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string }> };
    expect(afterAdd.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'user']);
    const read = await call('conversations.retrieve', () => agents.conversations.retrieve(conversation.id));
    expect(read).toMatchObject({ id: conversation.id, object: 'conversation', metadata: { topic: 'orders' } });
    await expect(agents.responses.create({ model: 'echo', input: 'x', conversation: 'conv_unknown' })).rejects.toMatchObject({ status: 404, error: { param: 'conversation' } });
    const deleted = await call('conversations.delete', () => agents.conversations.delete(conversation.id));
    expect(deleted).toMatchObject({ id: conversation.id, deleted: true });
  });

  it('starts a conversation with items and deletes one, which later turns no longer see', async () => {
    const conversation = await call('conversations.create (items)', () =>
      agents.conversations.create({
        items: [
          { type: 'message', role: 'user', content: 'my name is Ada' },
          { type: 'message', role: 'assistant', content: 'hello Ada' },
          { type: 'message', role: 'user', content: 'I live in Paris' },
        ],
      }),
    );
    const items = await call('conversations.items.list', () => agents.conversations.items.list(conversation.id, { order: 'asc' }));
    expect(items.data.map((item) => (item.type === 'message' ? item.role : item.type))).toEqual(['user', 'assistant', 'user']);
    const nameId = items.data[0]?.id;
    if (!nameId) throw new Error('no items');
    const afterDelete = await call('conversations.items.delete', () => agents.conversations.items.delete(nameId, { conversation_id: conversation.id }));
    expect(afterDelete).toMatchObject({ id: conversation.id, object: 'conversation' });
    await expect(agents.conversations.items.retrieve(nameId, { conversation_id: conversation.id })).rejects.toMatchObject({ status: 404 });
    const left = await call('conversations.items.list (after delete)', () => agents.conversations.items.list(conversation.id, { order: 'asc' }));
    expect(left.data.map((item) => item.id)).toEqual(items.data.slice(1).map((item) => item.id));
    await call('responses.create (conversation with a deleted item)', () => agents.responses.create({ model: 'echo', input: 'where do I live?', conversation: conversation.id }));
    const sent = gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string }> };
    expect(sent.messages.map((message) => message.role)).toEqual(['system', 'assistant', 'user', 'user']);
    expect(JSON.stringify(sent)).not.toContain('my name is Ada');
  });
});
