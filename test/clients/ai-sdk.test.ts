import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { embedMany, generateText, Output, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { clientCalls, installedVersion } from './support/client-call.ts';

/**
 * The AI SDK (`ai` with @ai-sdk/openai, @ai-sdk/anthropic and @ai-sdk/google) as its docs
 * show it, each provider created with Junction's base URL and a Junction key.
 */
const call = clientCalls('ai');
const providerVersions = ['@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/google'].map((name) => `${name} ${installedVersion(name)}`).join(', ');
let gateway: GatewayHarness;
let key: string;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  key = await gateway.key('model');
});
afterAll(async () => gateway.close());

describe(`ai with ${providerVersions}`, () => {
  it('@ai-sdk/anthropic: streamText with a tool runs the tool loop (tools sent with eager_input_streaming)', async () => {
    const anthropic = createAnthropic({ baseURL: `${gateway.baseUrl}/v1`, apiKey: key });
    const lookups: string[] = [];
    const result = streamText({
      model: anthropic('test-tool'),
      prompt: 'Where is order 42?',
      tools: {
        lookup_order: tool({
          description: 'Find an order',
          inputSchema: z.object({ order_id: z.string() }),
          execute: async ({ order_id }) => {
            lookups.push(order_id);
            return 'shipped yesterday';
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    const text = await call('streamText (@ai-sdk/anthropic, tools)', async () => result.text);
    expect(lookups).toHaveLength(1);
    expect(text).toContain('shipped yesterday');
    const sentTools = (gateway.anthropic.requests.at(-1)?.body as { tools?: Array<Record<string, unknown>> }).tools;
    expect(sentTools?.[0]?.['name']).toBe('lookup_order');
    // An Anthropic upstream takes fine-grained tool streaming as it came: forwarded, nothing dropped.
    expect(sentTools?.[0]?.['eager_input_streaming']).toBe(true);
    expect((await result.response).headers?.['x-junction-dropped-params']).toBeUndefined();
  });

  it('@ai-sdk/google: embedMany and embed with a bare model name', async () => {
    const google = createGoogleGenerativeAI({ baseURL: `${gateway.baseUrl}/v1beta`, apiKey: key });
    const { embeddings } = await call('embedMany (@ai-sdk/google)', () =>
      embedMany({ model: google.embedding('test-native-embed'), values: ['embed me', 'and me'], providerOptions: { google: { outputDimensionality: 8 } } }),
    );
    expect(embeddings.map((embedding) => embedding.length)).toEqual([8, 8]);
    const { text } = await call('generateText (@ai-sdk/google)', () => generateText({ model: google('test-echo'), prompt: 'hello google provider' }));
    expect(text).toBe('hello google provider');
  });

  it('@ai-sdk/openai: chat generateText, structured output and embeddings', async () => {
    const openai = createOpenAI({ baseURL: `${gateway.baseUrl}/v1`, apiKey: key });
    const { text } = await call('generateText (@ai-sdk/openai chat)', () => generateText({ model: openai.chat('openai/test-echo'), prompt: 'hello openai provider' }));
    expect(text).toBe('hello openai provider');
    const { output } = await call('generateText (@ai-sdk/openai chat, Output.object)', () =>
      generateText({ model: openai.chat('openai/test-echo'), prompt: '{"city":"Lyon"}', output: Output.object({ schema: z.object({ city: z.string() }) }) }),
    );
    expect(output).toEqual({ city: 'Lyon' });
    expect(gateway.openai.requests.at(-1)?.body).toMatchObject({ response_format: { type: 'json_schema' } });
    const { embeddings } = await call('embedMany (@ai-sdk/openai)', () => embedMany({ model: openai.embedding('openai/test-native-embed'), values: ['a', 'b'] }));
    expect(embeddings).toHaveLength(2);
  });
});
