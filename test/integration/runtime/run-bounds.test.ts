import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** max_steps, max_run_seconds and max_run_cost_usd: a run that reaches one ends `incomplete` with it as the reason, billed for what it used. */
const runtime = useRuntimeGateway({
  thrifty: 'name: Thrifty\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\nmax_run_cost_usd: 0.000001\n',
  hasty: 'name: Hasty\nmodel: openai/test-slow\ninstructions: Take your time.\nmax_run_seconds: 1\n',
  stubborn: 'name: Stubborn\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\nmax_steps: 1\n',
  roomy: 'name: Roomy\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\nmax_run_cost_usd: 5\nmax_run_seconds: 60\n',
});

type Resource = {
  id: string;
  status: string;
  incomplete_details: { reason: string } | null;
  output: Array<{ type: string; status?: string; output?: string | null; content?: Array<{ text: string }> }>;
  usage: { cost: number; cost_details: { tool_cost: number; model_cost: number } };
};
const post = async (body: Record<string, unknown>) => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify(body) });
  return (await response.json()) as Resource;
};
const billed = async (model: string) => {
  await runtime.gateway.settle();
  const rows = await runtime.gateway.services.db.query<{ n: number; cost: number }>(`SELECT count(*)::int AS n, coalesce(sum(cost_micros), 0)::int AS cost FROM usage_log WHERE agent_id = $1`, [
    model,
  ]);
  return rows.rows[0] ?? { n: 0, cost: 0 };
};

describe(`run bounds on ${engineName()}`, () => {
  it('max_run_cost_usd: the run stops once it has spent its budget, incomplete, billed for the steps it took', async () => {
    const response = await post({ model: 'thrifty', input: 'shout' });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_run_cost_usd' });
    // The first model step called the tool; the budget was gone then, so the tool never ran and no second step either.
    expect(response.output.map((item) => [item.type, item.status, item.output])).toEqual([['junction:tool_call', 'incomplete', null]]);
    expect(response.usage.cost_details.tool_cost).toBe(0);
    expect(response.usage.cost_details.model_cost).toBeGreaterThan(0);
    expect(await billed('thrifty')).toMatchObject({ n: 1 });
  });

  it('max_run_seconds: a model call still streaming is cut; what it wrote is kept, incomplete, and the call is billed', async () => {
    // The slow fake streams 30 padding words (50 ms apart) before the echo: about 1.6 s in all.
    const response = await post({ model: 'hasty', input: 'a long answer' });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_run_seconds' });
    const text = response.output.find((item) => item.type === 'message')?.content?.[0]?.text ?? '';
    expect(text).not.toContain('a long answer');
    expect(text === '' || text.startsWith('tick-1')).toBe(true);
    expect((await billed('hasty')).n).toBe(1);
  });

  it('max_steps: a model that still calls tools on its last allowed step (the fake ignores tool_choice none) ends incomplete', async () => {
    const response = await post({ model: 'stubborn', input: 'shout' });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_steps' });
    expect((await billed('stubborn')).n).toBe(1);
  });

  it('a run within its bounds completes', async () => {
    const response = await post({ model: 'roomy', input: 'shout' });
    expect(response.status).toBe('completed');
    expect(response.incomplete_details).toBeNull();
    expect(response.output.map((item) => item.type)).toEqual(['junction:tool_call', 'message']);
  });
});
