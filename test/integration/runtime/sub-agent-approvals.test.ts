import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** An approval a sub-agent asks for says which agent raised it, and answering it resumes that sub-agent inside the run. */
const runtime = useRuntimeGateway({
  boss: 'name: Boss\nmodel: openai/test-tool\ninstructions: Delegate.\nagents: [guarded]\n',
  guarded: 'name: Guarded\ndescription: Shouts, with permission.\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [{ name: echo_upper, require_approval: true }]\n',
});

type Item = { type: string; id: string; name?: string; agent?: string; output?: string | null; content?: Array<{ text: string }> };
type Resource = { id: string; status: string; output: Item[]; usage: { cost_details: { tool_cost: number } } | null };

const post = async (body: Record<string, unknown>) => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Resource };
};
/** Usage rows by what they bill (model or tool), after the queued settlements are written. */
const rowsByModel = async () => {
  await runtime.gateway.settle();
  const rows = await runtime.gateway.services.db.query<{ requested_model: string; n: number }>('SELECT requested_model, count(*)::int AS n FROM usage_log GROUP BY requested_model');
  return Object.fromEntries(rows.rows.map((row) => [row.requested_model, row.n]));
};
const modelCalls = () => runtime.gateway.openai.requests.filter((request) => request.path === '/v1/chat/completions').length;

describe(`approvals raised inside a sub-agent on ${engineName()}`, () => {
  it('the approval request names the sub-agent; the run’s own requests name none', async () => {
    const { status, json } = await post({ model: 'boss', input: 'get it shouted' });
    expect(status, JSON.stringify(json)).toBe(200);
    const request = json.output.find((item) => item.type === 'junction:approval_request');
    expect(request).toMatchObject({ name: 'echo_upper', agent: 'guarded' });

    const direct = await post({ model: 'guarded', input: 'shout' });
    const own = direct.json.output.find((item) => item.type === 'junction:approval_request');
    expect(own?.name).toBe('echo_upper');
    expect(own?.agent).toBeUndefined();
  });

  it('approved, the sub-agent goes on from its pause and the caller completes: the tool runs and is billed once', async () => {
    const paused = await post({ model: 'boss', input: 'get it shouted' });
    const request = paused.json.output.find((item) => item.type === 'junction:approval_request');
    expect(request, JSON.stringify(paused.json)).toMatchObject({ agent: 'guarded' });
    const before = await rowsByModel();
    const callsBefore = modelCalls();

    const answer = { type: 'junction:approval_response', approval_request_id: request?.id, approve: true };
    const resumed = await post({ model: 'boss', previous_response_id: paused.json.id, input: [answer] });
    expect(resumed.status, JSON.stringify(resumed.json)).toBe(200);
    expect(resumed.json.status).toBe('completed');
    const toolCall = resumed.json.output.find((item) => item.type === 'junction:tool_call' && item.name === 'echo_upper');
    expect(toolCall).toMatchObject({ agent: 'guarded', output: 'FAKE' });
    const answerText = resumed.json.output.findLast((item) => item.type === 'message' && item.agent === undefined)?.content?.[0]?.text;
    expect(answerText).toBe('Tool ask_guarded returned: Tool echo_upper returned: FAKE');
    expect(resumed.json.usage?.cost_details.tool_cost).toBe(0.002);
    // Only the two steps after the pause ran: the sub-agent's answer and the caller's; neither asked again.
    expect(modelCalls() - callsBefore).toBe(2);
    expect(resumed.json.output.some((item) => item.type === 'junction:approval_request')).toBe(false);

    const after = await rowsByModel();
    expect((after['tool:echo_upper'] ?? 0) - (before['tool:echo_upper'] ?? 0)).toBe(1);
    expect((after['openai/test-tool'] ?? 0) - (before['openai/test-tool'] ?? 0)).toBe(2);
    // The pause was taken: the same answer again resumes nothing.
    expect((await post({ model: 'boss', previous_response_id: paused.json.id, input: [answer] })).status).toBe(400);
    expect((await rowsByModel())['tool:echo_upper']).toBe(after['tool:echo_upper']);
  });
});
