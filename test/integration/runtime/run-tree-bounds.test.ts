import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * max_run_cost_usd and max_run_seconds bound the whole run tree: sub-agents at any depth
 * and the agents a run was handed to. The looping agents have no bounds of their own; the
 * fake `loop` model calls its tool after every result, so without the caller's bounds each
 * would run to its max_steps.
 */
const looper = (model: string) => `name: Looper\ndescription: Never done.\nmodel: openai/${model}\ninstructions: Use your tool.\ntools: [echo_upper]\nmax_steps: 12\n`;
const runtime = useRuntimeGateway({
  looper: looper('test-loop'),
  'slow-looper': looper('test-loop-slow'),
  middle: 'name: Middle\ndescription: Delegates.\nmodel: openai/test-tool\ninstructions: Delegate.\nagents: [looper]\n',
  'cost-boss': 'name: Cost boss\nmodel: openai/test-tool\ninstructions: Delegate.\nagents: [looper]\nmax_run_cost_usd: 0.005\n',
  'deep-boss': 'name: Deep boss\nmodel: openai/test-tool\ninstructions: Delegate.\nagents: [middle]\nmax_run_cost_usd: 0.005\n',
  'handing-boss': 'name: Handing boss\nmodel: openai/test-tool\ninstructions: Hand over.\nhandoffs: [looper]\nmax_run_cost_usd: 0.005\n',
  'time-boss': 'name: Time boss\nmodel: openai/test-tool\ninstructions: Delegate.\nagents: [slow-looper]\nmax_run_seconds: 1\n',
  'time-handing-boss': 'name: Time handing boss\nmodel: openai/test-tool\ninstructions: Hand over.\nhandoffs: [slow-looper]\nmax_run_seconds: 1\n',
});

type Resource = { status: string; incomplete_details: { reason: string } | null };
const COST_CAP_MICROS = 5_000;

const run = async (model: string) => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify({ model, input: 'go' }) });
  const body = (await response.json()) as Resource;
  expect(response.status, JSON.stringify(body)).toBe(200);
  await runtime.gateway.settle();
  const rows = await runtime.gateway.services.db.query<{ agent_id: string; requested_model: string; cost_micros: number }>(
    `SELECT agent_id, requested_model, cost_micros FROM usage_log WHERE agent_run_id = (SELECT agent_run_id FROM usage_log WHERE agent_id = $1 LIMIT 1)`,
    [model],
  );
  const costs = rows.rows.map((row) => row.cost_micros);
  return { body, rows: rows.rows, total: costs.reduce((sum, cost) => sum + cost, 0), largestStep: Math.max(...costs) };
};

describe(`bounds over the run tree on ${engineName()}`, () => {
  it.each(['cost-boss', 'deep-boss', 'handing-boss'])('%s: the cost bound stops the looping agent below it within one step of the cap', async (model) => {
    const { body, rows, total, largestStep } = await run(model);
    expect(body.status).toBe('incomplete');
    expect(body.incomplete_details).toEqual({ reason: 'max_run_cost_usd' });
    expect(rows.some((row) => row.agent_id === 'looper')).toBe(true);
    // Checked before every model call and tool call: at most the one step that crossed the cap is over it.
    expect(total).toBeGreaterThanOrEqual(COST_CAP_MICROS);
    expect(total).toBeLessThanOrEqual(COST_CAP_MICROS + largestStep);
  });

  // A slow step streams for about 1.5 s here, longer than the 1 s bound, so the looper's first step
  // is still streaming when the bound cuts it: the fake upstream sees that answer's reader leave.
  it.each(['time-boss', 'time-handing-boss'])(
    '%s: the time bound cuts the step still running below it',
    async (model) => {
      const cutBefore = runtime.gateway.openai.clientDisconnects;
      const { body, rows } = await run(model);
      expect(body.incomplete_details).toEqual({ reason: 'max_run_seconds' });
      for (let attempt = 0; attempt < 100 && runtime.gateway.openai.clientDisconnects === cutBefore; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(runtime.gateway.openai.clientDisconnects - cutBefore).toBe(1);
      const looperSteps = rows.filter((row) => row.agent_id === 'slow-looper' && row.requested_model.startsWith('openai/'));
      expect(looperSteps.length).toBeGreaterThanOrEqual(1);
      expect(looperSteps.length).toBeLessThanOrEqual(2);
    },
    60_000,
  );
});
