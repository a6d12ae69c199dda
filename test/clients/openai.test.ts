import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { clientCalls } from './support/client-call.ts';

/** The official `openai` client as its README shows it, with only baseURL and apiKey changed. */
const call = clientCalls('openai');
let gateway: GatewayHarness;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  client = new OpenAI({ apiKey: await gateway.key('model'), baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
});
afterAll(async () => gateway.close());

const lookupOrder: OpenAI.ChatCompletionFunctionTool = {
  type: 'function',
  function: { name: 'lookup_order', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } },
};

describe('openai chat completions', () => {
  it('answers and streams', async () => {
    const completion = await call('chat.completions.create', () =>
      client.chat.completions.create({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'hello openai' }] }),
    );
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
      const second = await call(`chat.completions.create (tool result, ${model})`, () =>
        client.chat.completions.create({ model, messages: [...messages, assistant, result], tools: [lookupOrder] }),
      );
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
