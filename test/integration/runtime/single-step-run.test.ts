import { describe, expect, it } from 'vitest';
import { waitForBackgroundResponse } from '../../support/background-response.ts';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * An agent without server-side tools runs its one model step without the graph when the
 * run is not checkpointed (a foreground turn); a background run of the same agent still
 * goes through the checkpointed graph. Both must be the same run to everyone outside:
 * the upstream request, the events a client draws, the output, the usage and the bill.
 */
const runtime = useRuntimeGateway({
  plain: 'name: Plain\nmodel: openai/test-echo\ninstructions: Repeat what you are told.\ntemperature: 0.2\n',
});

type Resource = { id: string; status: string; output: Array<{ type: string; content?: Array<{ text: string }> }>; usage: { input_tokens: number; output_tokens: number; cost: number } };
const post = async (body: Record<string, unknown>) => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify(body) });
  return { status: response.status, text: await response.text() };
};
const get = async (id: string, query = '') => (await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses/${id}${query}`, { headers: runtime.headers() })).text();
/** Event types in order, and the resource each terminal event carries. */
const eventsOf = (text: string) =>
  text
    .split('\n\n')
    .filter((frame) => frame.startsWith('event:'))
    .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as { type: string; response?: Resource });
const upstreamBodyOf = (text: string) => runtime.gateway.openai.requests.findLast((request) => JSON.stringify(request.body).includes(text))?.body as Record<string, unknown>;

describe(`a one-step agent on ${engineName()}`, () => {
  it('is the same run without the graph (foreground) as with it (background)', async () => {
    const streamed = await post({ model: 'plain', input: 'same words', stream: true });
    expect(streamed.status).toBe(200);
    const foregroundEvents = eventsOf(streamed.text);
    const foreground = foregroundEvents.at(-1)?.response as Resource;
    expect(foreground.status).toBe('completed');

    const queued = await post({ model: 'plain', input: 'same words', background: true });
    expect(queued.status).toBe(200);
    const background = await waitForBackgroundResponse<Resource>(runtime.gateway.baseUrl, runtime.headers(), (JSON.parse(queued.text) as Resource).id);
    expect(background.status).toBe('completed');
    const backgroundEvents = eventsOf(await get(background.id, '?stream=true'));

    // Item ids differ per run; everything else in the output is the same.
    const withoutIds = (output: Resource['output']) => output.map(({ id: _id, ...item }: Resource['output'][number] & { id?: string }) => item);
    expect(withoutIds(foreground.output)).toEqual(withoutIds(background.output));
    expect(foreground.output.at(-1)?.content?.[0]?.text).toBe('same words');
    expect(foreground.usage).toEqual(background.usage);
    // A background run is queued first; from there on the events are the same.
    expect(foregroundEvents.map((event) => event.type)).toEqual(backgroundEvents.map((event) => event.type).filter((type) => type !== 'response.queued'));
    expect(foregroundEvents.map((event) => event.type)).toContain('response.output_text.delta');

    // The upstream saw the same call: the instructions as a system message, the settings, the input.
    const requests = runtime.gateway.openai.requests.filter((request) => JSON.stringify(request.body).includes('same words'));
    expect(requests).toHaveLength(2);
    const [first, second] = requests.map((request) => request.body as { messages: unknown[]; temperature: number });
    expect(first).toEqual(second);
    expect(first?.messages[0]).toEqual({ role: 'system', content: 'Repeat what you are told.' });
    expect(first?.temperature).toBe(0.2);
    expect(upstreamBodyOf('same words')).toBeDefined();

    // Billed alike: one model row each, under each run's own id, at the same cost.
    await runtime.gateway.settle();
    const rows = await runtime.gateway.services.db.query<{ cost_micros: string; agent_run_id: string | null }>(
      `SELECT cost_micros::text, agent_run_id::text FROM usage_log WHERE agent_id = 'plain' AND status = 'success' ORDER BY created_at`,
    );
    expect(rows.rows).toHaveLength(2);
    expect(rows.rows[0]?.cost_micros).toBe(rows.rows[1]?.cost_micros);
    expect(rows.rows.every((row) => row.agent_run_id !== null)).toBe(true);
  });

  it("adds a request's instructions to the agent's, on one system message", async () => {
    const before = runtime.gateway.openai.requests.length;
    const response = await post({ model: 'plain', input: 'never sent', stream: false, instructions: 'Extra.' });
    expect(response.status).toBe(200);
    expect(runtime.gateway.openai.requests.length).toBe(before + 1);
    const resource = JSON.parse(response.text) as Resource;
    expect(resource.status).toBe('completed');
    expect((upstreamBodyOf('never sent') as { messages: Array<{ content: unknown }> }).messages[0]?.content).toBe('Repeat what you are told.\n\nExtra.');
  });
});
