import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';

/**
 * A local token count (OpenAI-format models have no counting endpoint) needs the o200k
 * tokenizer, whose tables take the better part of a second of CPU to build. That work
 * must not land on the event loop: the first count after a start would stall every
 * other request of the process for as long.
 */
let gateway: GatewayHarness;
let key: string;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  key = await gateway.key('model');
});
afterAll(async () => gateway.close());

const count = async (model: string, text: string) => {
  const response = await fetch(`${gateway.baseUrl}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: text }] }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { input_tokens: number }).input_tokens;
};

it('the first local count does not stall the event loop while the tokenizer loads', async () => {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // o200k: "hello world" is 2 tokens; OpenAI's framing adds 3 per message and 3 to prime the reply.
  expect(await count('openai/test-echo', 'hello world')).toBe(8);
  delay.disable();
  expect(delay.max / 1e6).toBeLessThan(250);
  expect(await count('openai/test-echo', 'hello world hello world')).toBe(10);
});
