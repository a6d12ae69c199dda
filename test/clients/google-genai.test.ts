import { GoogleGenAI, Type } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { clientCalls } from './support/client-call.ts';

/**
 * @google/genai exactly as its README shows it, against Junction with only the base URL
 * and the key changed. Since major 3 the client calls API version `v1` by default, so
 * every call here goes to `/v1/models/…`; models are named the Gemini way, bare.
 */
const call = clientCalls('@google/genai');
let gateway: GatewayHarness;
let ai: GoogleGenAI;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  ai = new GoogleGenAI({ apiKey: await gateway.key('model'), httpOptions: { baseUrl: gateway.baseUrl } });
});
afterAll(async () => gateway.close());

describe('@google/genai on its default API version (v1)', () => {
  it('models.list finds the models the key may call, in Gemini shape', async () => {
    const names: string[] = [];
    const pager = await call('models.list', () => ai.models.list({ config: { pageSize: 10 } }));
    for await (const model of pager) names.push(model.name ?? '');
    expect(names).toEqual(gateway.services.catalog.models.map((model) => `models/${model.id}`));
    const described = await call('models.get', () => ai.models.get({ model: 'test-echo' }));
    expect(described.name).toBe('models/google/test-echo');
  });

  it('generateContent and generateContentStream answer a bare Gemini model name', async () => {
    const response = await call('models.generateContent', () => ai.models.generateContent({ model: 'test-echo', contents: 'hello from genai' }));
    expect(response.text).toBe('hello from genai');
    expect(gateway.gemini.requests.at(-1)?.path).toContain('/models/test-echo:generateContent');
    let text = '';
    const stream = await call('models.generateContentStream', () => ai.models.generateContentStream({ model: 'test-echo', contents: 'stream these words' }));
    for await (const chunk of stream) text += chunk.text ?? '';
    expect(text).toBe('stream these words');
  });

  it('round-trips a function call', async () => {
    const config = {
      tools: [{ functionDeclarations: [{ name: 'lookup_order', parameters: { type: Type.OBJECT, properties: { order_id: { type: Type.STRING } }, required: ['order_id'] } }] }],
    };
    const question = { role: 'user', parts: [{ text: 'Where is order 42?' }] };
    const first = await call('models.generateContent (tools)', () => ai.models.generateContent({ model: 'test-tool', contents: [question], config }));
    const functionCall = first.functionCalls?.[0];
    expect(functionCall?.name).toBe('lookup_order');
    const modelTurn = first.candidates?.[0]?.content;
    if (!functionCall || !modelTurn) throw new Error('no function call');
    const answer = { role: 'user', parts: [{ functionResponse: { id: functionCall.id, name: 'lookup_order', response: { result: 'shipped' } } }] };
    const second = await call('models.generateContent (function response)', () => ai.models.generateContent({ model: 'test-tool', contents: [question, modelTurn, answer], config }));
    expect(second.text).toContain('shipped');
  });

  it('structured output: responseMimeType and responseSchema reach the model', async () => {
    const config = { responseMimeType: 'application/json', responseSchema: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } };
    const response = await call('models.generateContent (JSON)', () => ai.models.generateContent({ model: 'test-echo', contents: '{"city":"Lyon"}', config }));
    expect(JSON.parse(response.text ?? '')).toEqual({ city: 'Lyon' });
    expect(gateway.gemini.requests.at(-1)?.body).toMatchObject({ generationConfig: { responseMimeType: 'application/json' } });
  });

  it('embedContent embeds several texts with a bare embedding model name', async () => {
    const result = await call('models.embedContent', () => ai.models.embedContent({ model: 'test-native-embed', contents: ['embed me', 'and me'], config: { outputDimensionality: 8 } }));
    expect(result.embeddings?.map((embedding) => embedding.values?.length)).toEqual([8, 8]);
  });

  it('countTokens counts', async () => {
    const counted = await call('models.countTokens', () => ai.models.countTokens({ model: 'test-echo', contents: 'how many tokens is this' }));
    expect(counted.totalTokens).toBeGreaterThan(0);
  });

  it('a field Junction does not know reaches a Gemini upstream as sent', async () => {
    const config = { httpOptions: { extraBody: { newGeminiField: { enabled: true } } } };
    const response = await call('models.generateContent (extraBody)', () => ai.models.generateContent({ model: 'test-echo', contents: 'still answers', config }));
    expect(response.text).toBe('still answers');
    expect(gateway.gemini.requests.at(-1)?.body).toMatchObject({ newGeminiField: { enabled: true } });
    expect(response.sdkHttpResponse?.headers?.['x-junction-dropped-params']).toBeUndefined();
  });
});
