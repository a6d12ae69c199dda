import Anthropic from '@anthropic-ai/sdk';
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { clientCalls } from './support/client-call.ts';

/** @anthropic-ai/sdk as its README shows it, with only baseURL and apiKey changed. */
const call = clientCalls('@anthropic-ai/sdk');
let gateway: GatewayHarness;
let client: Anthropic;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  client = new Anthropic({ apiKey: await gateway.key('model'), baseURL: gateway.baseUrl, maxRetries: 0 });
});
afterAll(async () => gateway.close());

describe('@anthropic-ai/sdk messages', () => {
  it('creates and streams with a bare Claude model name, and counts tokens', async () => {
    const message = await call('messages.create', () => client.messages.create({ model: 'test-echo', max_tokens: 100, messages: [{ role: 'user', content: 'hello claude' }] }));
    expect(message.content[0]?.type === 'text' && message.content[0].text).toBe('hello claude');
    const stream = client.messages.stream({ model: 'test-echo', max_tokens: 100, messages: [{ role: 'user', content: 'stream these words' }] });
    const final = await call('messages.stream', () => stream.finalMessage());
    expect(final.content[0]?.type === 'text' && final.content[0].text).toBe('stream these words');
    const counted = await call('messages.countTokens', () => client.messages.countTokens({ model: 'test-echo', messages: [{ role: 'user', content: 'count me' }] }));
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it('beta.messages.toolRunner runs a tool loop, going on without a message thread when refused one', async () => {
    const lookups: string[] = [];
    const lookupOrder = betaZodTool({
      name: 'lookup_order',
      description: 'Find an order',
      inputSchema: z.object({ order_id: z.string() }),
      run: (input) => {
        lookups.push(input.order_id);
        return 'shipped yesterday';
      },
    });
    const runner = client.beta.messages.toolRunner({ model: 'test-tool', max_tokens: 200, messages: [{ role: 'user', content: 'Where is order 42?' }], tools: [lookupOrder] });
    const final = await call('beta.messages.toolRunner', () => runner.runUntilDone());
    expect(lookups).toHaveLength(1);
    expect(final.content[0]?.type === 'text' && final.content[0].text).toContain('shipped yesterday');
    const sent = gateway.anthropic.requests.filter((request) => request.path.endsWith('/messages')).slice(-2);
    expect(sent.map((request) => (request.body as { thread?: unknown }).thread)).toEqual([undefined, undefined]);
  });

  it('fields Junction does not know reach an Anthropic upstream, nested ones in place', async () => {
    const params = {
      model: 'test-echo',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'new fields' }],
      tools: [{ name: 'noop', input_schema: { type: 'object' }, eager_input_streaming: true }],
      new_top_level_option: { on: true },
    } as Anthropic.MessageCreateParamsNonStreaming;
    const { data, response } = await call('messages.create (unknown fields)', () => client.messages.create(params).withResponse());
    expect(data.content[0]?.type === 'text' && data.content[0].text).toBe('new fields');
    expect(gateway.anthropic.requests.at(-1)?.body).toMatchObject({ new_top_level_option: { on: true }, tools: [{ name: 'noop', eager_input_streaming: true }] });
    expect(response.headers.get('x-junction-dropped-params')).toBeNull();
  });
});
