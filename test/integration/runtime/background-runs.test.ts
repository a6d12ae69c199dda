import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForBackgroundResponse } from '../../support/background-response.ts';
import { type GatedUpstream, startGatedUpstream } from '../../support/gated-upstream.ts';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * `background: true`, GET (as it stands, and replayed as a stream), cancel, and a client that walks away.
 * The gateway reaches the fake OpenAI upstream through a gate, so a test can hold the model calls.
 */
const providerEnv: Record<string, string> = {};
let gate: GatedUpstream;
beforeAll(async () => {
  gate = await startGatedUpstream(() => runtime.gateway.openai.url);
  providerEnv.OPENAI_BASE_URL = gate.url;
});
afterAll(async () => gate?.close());
const runtime = useRuntimeGateway(
  {
    echo: 'name: Echo\nmodel: openai/test-echo\ninstructions: Repeat.\n',
    slow: 'name: Slow\nmodel: openai/test-slow\ninstructions: Take your time.\n',
    helper: 'name: Helper\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\n',
  },
  Object.assign(providerEnv, { JUNCTION_RUN_LEASE_SECONDS: '3' }),
);

type Resource = {
  id: string;
  status: string;
  background: boolean;
  output: Array<{ type: string; content?: Array<{ text: string }>; output?: string }>;
  usage: { cost: number; cost_details: { tool_cost: number } } | null;
};
const create = async (body: Record<string, unknown>) => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Resource };
};
const retrieve = async (id: string, query = '') => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses/${id}${query}`, { headers: runtime.headers() });
  return { status: response.status, text: await response.text() };
};
const settled = (id: string) => waitForBackgroundResponse<Resource>(runtime.gateway.baseUrl, runtime.headers(), id);
const eventsOf = (text: string) =>
  text
    .split('\n\n')
    .filter((frame) => frame.startsWith('event:'))
    .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as { type: string; sequence_number: number; response?: Resource });

describe(`background responses on ${engineName()}`, () => {
  it('answers before its run has done anything, runs on, and GET shows the finished response (billed like a foreground one)', async () => {
    const release = gate.hold();
    let created: { status: number; json: Resource } | undefined;
    try {
      const answering = create({ model: 'helper', input: 'shout this', background: true }).then((answer) => (created = answer));
      answering.catch(() => undefined);
      for (let attempt = 0; attempt < 200 && (created === undefined || gate.waiting === 0); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      // Both at once: the answer is out while the run's first model call waits at the gate.
      expect(gate.waiting).toBe(1);
      expect(created?.status).toBe(200);
      expect(created?.json).toMatchObject({ status: 'queued', background: true, output: [] });
      const meanwhile = JSON.parse((await retrieve(created?.json.id ?? '')).text) as Resource;
      expect(['queued', 'in_progress']).toContain(meanwhile.status);
      expect(meanwhile.output).toEqual([]);
    } finally {
      release();
    }
    const json = created?.json as Resource;
    const done = await settled(json.id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(done.output.map((item) => item.type)).toEqual(['junction:tool_call', 'message']);
    expect(done.output[0]?.output).toBe('FAKE');
    expect(done.usage?.cost_details.tool_cost).toBe(0.002);
    await runtime.gateway.settle();
    const rows = await runtime.gateway.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM usage_log WHERE agent_run_id = (SELECT id FROM agent_runs WHERE response_id = $1)`, [json.id]);
    expect(rows.rows[0]?.n).toBe(3); // two model steps and one tool call, under the run's id
    // Its checkpoints go once it finished, off the response's path (so they are awaited here);
    // the stored response continues like any other.
    const checkpointsLeft = async () =>
      (await runtime.gateway.services.db.query(`SELECT 1 FROM agent_checkpoints WHERE thread_id = (SELECT id FROM agent_runs WHERE response_id = $1)`, [json.id])).rows.length;
    for (let waited = 0; (await checkpointsLeft()) > 0 && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await checkpointsLeft()).toBe(0);
    const next = await create({ model: 'helper', input: 'again', previous_response_id: json.id });
    expect(next.status).toBe(200);
  });

  it('replays its events with stream=true, from the start or after starting_after', async () => {
    const { json } = await create({ model: 'echo', input: 'replay me', background: true });
    await settled(json.id);
    const all = eventsOf((await retrieve(json.id, '?stream=true')).text);
    expect(all.map((event) => event.sequence_number)).toEqual(all.map((_, index) => index));
    expect(all.slice(0, 3).map((event) => event.type)).toEqual(['response.created', 'response.queued', 'response.in_progress']);
    expect(all.at(-1)?.type).toBe('response.completed');
    expect(all.filter((event) => event.type === 'response.output_text.delta').length).toBeGreaterThan(0);
    const tail = eventsOf((await retrieve(json.id, '?stream=true&starting_after=3')).text);
    expect(tail.map((event) => event.sequence_number)).toEqual(all.slice(4).map((event) => event.sequence_number));
    // A foreground response cannot be streamed again.
    const foreground = await create({ model: 'echo', input: 'now' });
    expect((await retrieve(foreground.json.id, '?stream=true')).status).toBe(400);
  });

  it('streams a background response from its creation when created with stream: true', async () => {
    const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, {
      method: 'POST',
      headers: runtime.headers(),
      body: JSON.stringify({ model: 'echo', input: 'live', background: true, stream: true }),
    });
    const text = await response.text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const events = eventsOf(text);
    expect(events[0]?.type).toBe('response.created');
    expect(events.at(-1)?.response?.status).toBe('completed');
  });

  it('cancel stops a running response: it ends cancelled, billed for what it used', async () => {
    const { json } = await create({ model: 'slow', input: 'a long answer please', background: true });
    // Wait until it is streaming.
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const streaming = await runtime.gateway.services.db.query(
        `SELECT 1 FROM agent_run_events WHERE event->>'type' = 'response.output_text.delta' AND run_id = (SELECT id FROM agent_runs WHERE response_id = $1)`,
        [json.id],
      );
      if (streaming.rows.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // As openai-python's `responses.cancel(id)` sends it: labelled JSON, with no body.
    const cancel = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses/${json.id}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${runtime.key}`, 'content-type': 'application/json' },
    });
    const cancelled = (await cancel.json()) as Resource;
    expect(cancel.status).toBe(200);
    expect(cancelled.status).toBe('cancelled');
    expect((await settled(json.id)).status).toBe('cancelled');
    const replay = eventsOf((await retrieve(json.id, '?stream=true')).text);
    expect(replay.at(-1)?.response?.status).toBe('cancelled');
    await runtime.gateway.settle();
    const usage = await runtime.gateway.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM usage_log WHERE agent_run_id = (SELECT id FROM agent_runs WHERE response_id = $1)`, [json.id]);
    expect(usage.rows[0]?.n).toBe(1); // the interrupted model call is logged and billed
    // Only background responses can be cancelled; unknown ones are 404.
    const foreground = await create({ model: 'echo', input: 'x' });
    expect((await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses/${foreground.json.id}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${runtime.key}` } })).status).toBe(400);
    expect((await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses/resp_nope/cancel`, { method: 'POST', headers: { authorization: `Bearer ${runtime.key}` } })).status).toBe(404);
  });

  it('refuses background with store: false', async () => {
    const { status } = await create({ model: 'echo', input: 'x', background: true, store: false });
    expect(status).toBe(400);
  });

  it('a client that leaves a foreground stream cancels the run; the response is stored cancelled and billed', async () => {
    const controller = new AbortController();
    const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, {
      method: 'POST',
      headers: runtime.headers(),
      body: JSON.stringify({ model: 'slow', input: 'go on and on', stream: true }),
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('response.output_text.delta')) text += new TextDecoder().decode((await reader.read()).value);
    const id = /"id":"(resp_[^"]+)"/.exec(text)?.[1] as string;
    controller.abort();
    let stored: Resource | undefined;
    for (let attempt = 0; attempt < 100 && stored?.status !== 'cancelled'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const found = await retrieve(id);
      if (found.status === 200) stored = JSON.parse(found.text) as Resource;
    }
    expect(stored?.status).toBe('cancelled');
    await runtime.gateway.settle();
    const usage = await runtime.gateway.services.db.query<{ n: number; cost: number }>(
      `SELECT count(*)::int AS n, coalesce(sum(cost_micros), 0)::int AS cost FROM usage_log WHERE request_id IN (SELECT request_id FROM usage_log WHERE agent_id = 'slow') AND agent_id = 'slow'`,
    );
    expect(usage.rows[0]?.n).toBeGreaterThan(0);
  });
});
