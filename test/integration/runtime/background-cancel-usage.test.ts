import { expect, it } from 'vitest';
import { waitForBackgroundResponse } from '../../support/background-response.ts';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';

/** A cancelled background response reports the usage and cost the usage log bills for its run. */
const runtime = useRuntimeGateway({ slow: 'name: Slow\nmodel: openai/test-slow\ninstructions: Take your time.\n' });

type Resource = { id: string; status: string; usage: { input_tokens: number; output_tokens: number; cost: number } | null };

it('the usage of a cancelled background response is what its run was billed', async () => {
  const created = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, {
    method: 'POST',
    headers: runtime.headers(),
    body: JSON.stringify({ model: 'slow', input: 'a long answer please', background: true }),
  });
  const { id } = (await created.json()) as Resource;
  const runOf = `(SELECT id FROM agent_runs WHERE response_id = $1)`;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const streaming = await runtime.gateway.services.db.query(`SELECT 1 FROM agent_run_events WHERE event->>'type' = 'response.output_text.delta' AND run_id = ${runOf}`, [id]);
    if (streaming.rows.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const cancel = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses/${id}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${runtime.key}` } });
  expect(cancel.status).toBe(200);
  const done = await waitForBackgroundResponse<Resource>(runtime.gateway.baseUrl, runtime.headers(), id);
  expect(done.status, JSON.stringify(done)).toBe('cancelled');
  await runtime.gateway.settle();
  const billed = await runtime.gateway.services.db.query<{ input: number; output: number; cost: number }>(
    `SELECT sum(input_tokens)::int AS input, sum(output_tokens)::int AS output, sum(cost_micros)::int AS cost FROM usage_log WHERE agent_run_id = ${runOf}`,
    [id],
  );
  const row = billed.rows[0];
  expect(row?.cost).toBeGreaterThan(0);
  expect(done.usage).toMatchObject({ input_tokens: row?.input, output_tokens: row?.output });
  expect(Math.round((done.usage?.cost ?? 0) * 1e6)).toBe(row?.cost);
});
