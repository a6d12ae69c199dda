import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** `agents: [helper]`: the model may ask another agent, which runs as a subgraph of the same run. */
const runtime = useRuntimeGateway({
  boss: 'name: Boss\nmodel: openai/test-tool\ninstructions: Delegate.\nagents: [helper]\n',
  helper: 'name: Helper\ndescription: Shouts things.\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\n',
});

type Item = { type: string; name?: string; agent?: string; output?: string; arguments?: string; content?: Array<{ text: string }> };
type Resource = { id: string; status: string; output: Item[]; usage: { cost: number; input_tokens: number; output_tokens: number; cost_details: { model_cost: number; tool_cost: number } } };

describe(`sub-agents on ${engineName()}`, () => {
  it('runs the called agent with its own tools; its steps are marked with it; its costs are in the same run and response', async () => {
    const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify({ model: 'boss', input: 'get it shouted' }) });
    const json = (await response.json()) as Resource;
    expect(response.status, JSON.stringify(json)).toBe(200);
    expect(json.status).toBe('completed');
    const ask = json.output.find((item) => item.type === 'junction:tool_call' && item.name === 'ask_helper');
    expect(ask?.agent).toBeUndefined();
    expect(JSON.parse(ask?.arguments ?? '{}')).toEqual({ message: 'fake' });
    const inner = json.output.filter((item) => item.agent === 'helper').map((item) => [item.type, item.name ?? item.output]);
    expect(inner).toEqual([['junction:tool_call', 'echo_upper']]);
    expect(json.output.find((item) => item.agent === 'helper')?.output).toBe('FAKE');
    const answer = ask?.output;
    expect(answer).toBe('Tool echo_upper returned: FAKE');
    expect(json.output.at(-1)?.content?.[0]?.text).toBe('Tool ask_helper returned: Tool echo_upper returned: FAKE');

    await runtime.gateway.settle();
    const rows = await runtime.gateway.services.db.query<{ agent_id: string; agent_run_id: string; requested_model: string; cost_micros: number; input_tokens: number; output_tokens: number }>(
      `SELECT agent_id, agent_run_id, requested_model, cost_micros, input_tokens, output_tokens FROM usage_log WHERE agent_run_id = (SELECT agent_run_id FROM usage_log WHERE agent_id = 'boss' ORDER BY created_at DESC LIMIT 1) ORDER BY created_at`,
    );
    // Two boss steps, two helper steps, one tool call: one run id.
    expect(rows.rows.map((row) => `${row.agent_id}:${row.requested_model}`).sort()).toEqual([
      'boss:openai/test-tool',
      'boss:openai/test-tool',
      'helper:openai/test-tool',
      'helper:openai/test-tool',
      'helper:tool:echo_upper',
    ]);
    const total = rows.rows.reduce((sum, row) => sum + row.cost_micros, 0);
    expect(Math.round(json.usage.cost * 1_000_000)).toBe(total);
    expect(json.usage.cost_details.tool_cost).toBe(0.002);
    expect(json.usage.input_tokens).toBe(rows.rows.reduce((sum, row) => sum + row.input_tokens, 0));
  });

  it('on the chat endpoint the sub-agent stays inside: the client sees the caller’s answer only', async () => {
    const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/chat/completions`, {
      method: 'POST',
      headers: runtime.headers(),
      body: JSON.stringify({ model: 'boss', messages: [{ role: 'user', content: 'go' }], stream: true }),
    });
    const text = await response.text();
    const content = [...text.matchAll(/"content":"([^"]*)"/g)].map((match) => match[1]).join('');
    expect(content).toBe('Tool ask_helper returned: Tool echo_upper returned: FAKE');
  });
});
