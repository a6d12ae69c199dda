import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness, UPSTREAM_KEYS } from '../support/gateway-harness.ts';

let gateway: GatewayHarness;
let client: OpenAI;
let modelKey: string;

/** Test prices: 10 µUSD per input token, 20 µUSD per output token. */
const cost = (usage: { prompt_tokens: number; completion_tokens: number }) => (usage.prompt_tokens * 10 + usage.completion_tokens * 20) / 1e6;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  modelKey = await gateway.key('model');
  client = new OpenAI({ apiKey: modelKey, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
});
afterAll(async () => gateway.close());

describe('chat completions through the official openai client', () => {
  it('answers, bills and logs a plain call, with the provider key swapped in', async () => {
    const { data: completion, response } = await client.chat.completions.create({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'hello there gateway' }] }).withResponse();
    // The answer is serialized by hand (chatCompletionJson): typed as fastify types an object.
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(completion.choices[0]?.message.content).toBe('hello there gateway');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    const usage = completion.usage as OpenAI.CompletionUsage & { cost: number };
    expect(usage.cost).toBeCloseTo(cost(usage), 9);
    const upstream = gateway.openai.requests.at(-1);
    expect(upstream?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEYS.openai}`);
    expect((upstream?.body as { model: string }).model).toBe('test-echo');

    const generation = await fetch(`${gateway.baseUrl}/v1/generations/${completion.id}`, { headers: { authorization: `Bearer ${modelKey}` } });
    const row = ((await generation.json()) as { data: Record<string, unknown> }).data;
    expect(row).toMatchObject({ model: 'openai/test-echo', provider: 'openai', status: 'success', endpoint: 'chat.completions', tokens_prompt: usage.prompt_tokens, total_cost: usage.cost });
  });

  it('streams chunks, with usage and cost in the last one', async () => {
    const stream = await client.chat.completions.create({
      model: 'openai/test-echo',
      messages: [{ role: 'user', content: 'stream these four words' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: (OpenAI.CompletionUsage & { cost?: number }) | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('stream these four words');
    expect(finish).toBe('stop');
    expect(usage?.completion_tokens).toBe(4);
    expect(usage?.cost).toBeCloseTo(cost(usage ?? { prompt_tokens: 0, completion_tokens: 0 }), 9);
  });

  it('round-trips a tool call on each provider', async () => {
    for (const model of ['openai/test-tool', 'anthropic/test-tool', 'google/test-tool']) {
      const tools: OpenAI.ChatCompletionTool[] = [
        { type: 'function', function: { name: 'lookup_order', description: 'Find an order', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } } },
      ];
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Where is order 42?' }];
      const first = await client.chat.completions.create({ model, messages, tools });
      const call = first.choices[0]?.message.tool_calls?.[0];
      expect(first.choices[0]?.finish_reason, model).toBe('tool_calls');
      expect(call?.type === 'function' && call.function.name).toBe('lookup_order');
      const answer = first.choices[0]?.message;
      if (call?.type !== 'function' || !answer) throw new Error('no tool call');
      messages.push(answer, { role: 'tool', tool_call_id: call.id, content: 'shipped yesterday' });
      const second = await client.chat.completions.create({ model, messages, tools });
      expect(second.choices[0]?.message.content, model).toContain('shipped yesterday');
    }
  });

  it('streams reasoning as delta.reasoning', async () => {
    const stream = await client.chat.completions.create({ model: 'openai/test-reasoning', messages: [{ role: 'user', content: 'think first' }], stream: true });
    let reasoning = '';
    let content = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning?: string } | undefined;
      reasoning += delta?.reasoning ?? '';
      content += delta?.content ?? '';
    }
    expect(reasoning.length).toBeGreaterThan(0);
    expect(content).toBe('think first');
  });

  it('answers in the same shape from Anthropic and Gemini models', async () => {
    for (const model of ['anthropic/test-echo', 'google/test-echo']) {
      const completion = await client.chat.completions.create({
        model,
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'same words back' },
        ],
      });
      expect(completion.choices[0]?.message.content, model).toBe('same words back');
      expect(completion.model).toBe(model);
    }
    const thinking = await client.chat.completions.create({ model: 'anthropic/test-thinking', messages: [{ role: 'user', content: 'ponder' }], reasoning_effort: 'low' });
    expect((thinking.choices[0]?.message as { reasoning?: string }).reasoning?.length).toBeGreaterThan(0);
  });
});

describe('failures', () => {
  it('404s an unknown model and keeps an upstream 400 a 400', async () => {
    await expect(client.chat.completions.create({ model: 'openai/nope', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
    await expect(client.chat.completions.create({ model: 'openai/test-fail-400', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 400 });
  });

  it("reports an upstream refusing the gateway's provider key as a 502, not as the caller's 401", async () => {
    const error = await client.chat.completions.create({ model: 'openai/test-fail-401', messages: [{ role: 'user', content: 'x' }] }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 502, code: 'upstream_error' });
    expect(String((error as Error).message)).not.toContain(UPSTREAM_KEYS.openai);
  });

  it('retries retryable errors before the first byte, then falls back', async () => {
    const recovered = await client.chat.completions.create({ model: 'openai/test-fail-once-503', messages: [{ role: 'user', content: 'second time lucky' }] });
    expect(recovered.choices[0]?.message.content).toBe('second time lucky');

    const before = gateway.openai.attempts('test-fail-500');
    await expect(client.chat.completions.create({ model: 'openai/test-fail-500', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 502 });
    expect(gateway.openai.attempts('test-fail-500') - before).toBe(3);

    const viaFallback = await client.chat.completions.create({
      model: 'openai/test-fail-500',
      messages: [{ role: 'user', content: 'fallback answers' }],
      // OpenRouter's field: tried in order when the model fails before its first byte.
      ...({ models: ['anthropic/test-echo'] } as object),
    });
    expect(viaFallback.choices[0]?.message.content).toBe('fallback answers');
    expect(viaFallback.model).toBe('anthropic/test-echo');
    await gateway.settle();
    const row = await gateway.services.db.query<{ requested_model: string; model: string; provider: string; attempts: number }>(
      'SELECT requested_model, model, provider, attempts FROM usage_log WHERE id = $1',
      [viaFallback.id],
    );
    expect(row.rows[0]).toMatchObject({ requested_model: 'openai/test-fail-500', model: 'anthropic/test-echo', provider: 'anthropic', attempts: 4 });
  });

  it('ends a stream that fails after the first byte with an error frame, not a clean end', async () => {
    const stream = await client.chat.completions.create({ model: 'openai/test-fail-midstream', messages: [{ role: 'user', content: 'one two three four five six' }], stream: true });
    const received: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
      })(),
    ).rejects.toThrow();
    expect(received.join('').length).toBeGreaterThan(0);
  });

  it('aborts the upstream when the client disconnects and bills what was produced', async () => {
    const stream = await client.chat.completions.create({ model: 'openai/test-slow', messages: [{ role: 'user', content: 'take your time' }], stream: true });
    let chunks = 0;
    // Leaving the loop early makes the client abort the HTTP response.
    for await (const _ of stream) {
      chunks += 1;
      if (chunks === 3) break;
    }
    await new Promise((done) => setTimeout(done, 300));
    await gateway.settle();
    expect(gateway.openai.clientDisconnects).toBeGreaterThan(0);
    const rows = await gateway.services.db.query<{ status: string; cost_micros: number; output_tokens: number }>(
      "SELECT status, cost_micros, output_tokens FROM usage_log WHERE requested_model = 'openai/test-slow'",
    );
    expect(rows.rows[0]?.status).toBe('client_closed');
    expect(rows.rows[0]?.cost_micros).toBeGreaterThan(0);
  });

  it('aborts the upstream when the client gives up on a call still waiting for its answer, and bills nothing', async () => {
    const before = gateway.openai.clientDisconnects;
    const abandoned = new AbortController();
    const call = client.chat.completions.create({ model: 'openai/test-hang', messages: [{ role: 'user', content: 'are you there?' }] }, { signal: abandoned.signal });
    // Once the upstream holds the request, the caller leaves.
    const deadline = Date.now() + 5_000;
    while (gateway.openai.attempts('test-hang') === 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 10));
    abandoned.abort();
    await expect(call).rejects.toThrow();
    while (gateway.openai.clientDisconnects === before && Date.now() < deadline) await new Promise((done) => setTimeout(done, 10));
    expect(gateway.openai.clientDisconnects).toBe(before + 1);
    await gateway.settle();
    const rows = await gateway.services.db.query<{ status: string; http_status: number; cost_micros: number }>(
      "SELECT status, http_status, cost_micros FROM usage_log WHERE requested_model = 'openai/test-hang'",
    );
    expect(rows.rows).toEqual([{ status: 'client_closed', http_status: 499, cost_micros: 0 }]);
  });
});
