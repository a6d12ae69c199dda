import { AIMessage, HumanMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { clientCalls } from './support/client-call.ts';

/** @langchain/openai as LangChain's docs show it, pointed at Junction by `configuration.baseURL`. */
const call = clientCalls('@langchain/openai');
let gateway: GatewayHarness;
let key: string;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  key = await gateway.key('model');
});
afterAll(async () => gateway.close());

const chatModel = (model: string) => new ChatOpenAI({ model, apiKey: key, configuration: { baseURL: `${gateway.baseUrl}/v1` }, maxRetries: 0 });

const lookupOrder = tool(async ({ order_id }) => `order ${order_id} shipped yesterday`, {
  name: 'lookup_order',
  description: 'Find an order',
  schema: z.object({ order_id: z.string() }),
});

describe('@langchain/openai', () => {
  it('invokes and streams', async () => {
    const answer = await call('ChatOpenAI.invoke', () => chatModel('openai/test-echo').invoke('hello langchain'));
    expect(answer.content).toBe('hello langchain');
    let text = '';
    const stream = await call('ChatOpenAI.stream', () => chatModel('google/test-echo').stream('stream these words'));
    for await (const chunk of stream) text += typeof chunk.content === 'string' ? chunk.content : '';
    expect(text).toBe('stream these words');
  });

  it('bindTools: the tool loop completes its second turn (tool messages carry a name)', async () => {
    for (const model of ['openai/test-tool', 'anthropic/test-tool', 'google/test-tool']) {
      const withTools = chatModel(model).bindTools([lookupOrder]);
      const messages: BaseMessage[] = [new HumanMessage('Where is order 42?')];
      const first = await call(`bindTools invoke (${model})`, () => withTools.invoke(messages));
      expect(first.tool_calls?.length, model).toBe(1);
      messages.push(first);
      for (const toolCall of first.tool_calls ?? []) messages.push(await lookupOrder.invoke(toolCall));
      expect(messages.at(-1)).toBeInstanceOf(ToolMessage);
      const second = await call(`bindTools invoke, tool results (${model})`, () => withTools.invoke(messages));
      expect(second).toBeInstanceOf(AIMessage);
      expect(String(second.content), model).toContain('shipped yesterday');
    }
  });

  it('withStructuredOutput and embeddings', async () => {
    const structured = chatModel('openai/test-echo').withStructuredOutput(z.object({ city: z.string() }), { name: 'place', method: 'jsonSchema' });
    const place = await call('ChatOpenAI.withStructuredOutput', () => structured.invoke('{"city":"Lyon"}'));
    expect(place).toEqual({ city: 'Lyon' });
    const embeddings = new OpenAIEmbeddings({ model: 'openai/test-native-embed', apiKey: key, configuration: { baseURL: `${gateway.baseUrl}/v1` } });
    const vectors = await call('OpenAIEmbeddings.embedDocuments', () => embeddings.embedDocuments(['embed me', 'and me']));
    expect(vectors).toHaveLength(2);
  });
});
