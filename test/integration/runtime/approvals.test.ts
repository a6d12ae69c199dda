import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** A tool with `require_approval: true` pauses the run (a LangGraph interrupt) until a person answers. */
const runtime = useRuntimeGateway({
  approver: 'name: Approver\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [{ name: echo_upper, require_approval: true }]\n',
});

type Item = { type: string; id: string; status?: string; call_id?: string; name?: string; arguments?: string; output?: string; content?: Array<{ text: string }> };
type Resource = { id: string; status: string; output: Item[]; usage: { cost_details: { tool_cost: number } } | null; error?: { param?: string } };
const post = async (body: Record<string, unknown>) => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Resource & { error: { param: string } } };
};
const toolCalls = async () => {
  await runtime.gateway.settle();
  const rows = await runtime.gateway.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM usage_log WHERE requested_model = 'tool:echo_upper'`);
  return rows.rows[0]?.n ?? 0;
};

async function paused(): Promise<{ response: Resource; request: Item }> {
  const { status, json } = await post({ model: 'approver', input: 'shout fake' });
  expect(status).toBe(200);
  expect(json.status).toBe('completed');
  const request = json.output.at(-1) as Item;
  expect(request).toMatchObject({ type: 'junction:approval_request', status: 'completed', call_id: 'call_fake_0', name: 'echo_upper', arguments: '{"text":"fake"}' });
  expect(request.id).toMatch(/^apr_/);
  expect(json.output.some((item) => item.type === 'junction:tool_call')).toBe(false);
  return { response: json, request };
}

describe(`approvals on ${engineName()}`, () => {
  it('pauses before the tool runs; approved, the tool runs and the run goes on — once', async () => {
    const before = await toolCalls();
    const { response, request } = await paused();
    expect(await toolCalls()).toBe(before);
    const answer = { type: 'junction:approval_response', approval_request_id: request.id, approve: true };
    const resumed = await post({ model: 'approver', previous_response_id: response.id, input: [answer] });
    expect(resumed.status).toBe(200);
    expect(resumed.json.status).toBe('completed');
    expect(resumed.json.output.map((item) => item.type)).toEqual(['junction:tool_call', 'message']);
    expect(resumed.json.output[0]?.output).toBe('FAKE');
    expect(resumed.json.output[1]?.content?.[0]?.text).toBe('Tool echo_upper returned: FAKE');
    expect(resumed.json.usage?.cost_details.tool_cost).toBe(0.002);
    expect(await toolCalls()).toBe(before + 1);
    // The same answer again: the pause was taken.
    const again = await post({ model: 'approver', previous_response_id: response.id, input: [answer] });
    expect(again.status).toBe(400);
    // The conversation goes on from the resumed response like from any other.
    expect((await post({ model: 'approver', previous_response_id: resumed.json.id, input: 'thanks' })).status).toBe(200);
  });

  it('denied, the tool does not run and the model is told why', async () => {
    const before = await toolCalls();
    const { response, request } = await paused();
    const resumed = await post({
      model: 'approver',
      previous_response_id: response.id,
      input: [{ type: 'junction:approval_response', approval_request_id: request.id, approve: false, reason: 'not today' }],
    });
    expect(resumed.json.status).toBe('completed');
    const output = resumed.json.output.find((item) => item.type === 'junction:tool_call')?.output ?? '';
    expect(output).toContain('denied');
    expect(output).toContain('not today');
    expect(resumed.json.output.at(-1)?.content?.[0]?.text).toContain('not today'); // the fake model repeats the tool result it got
    expect(resumed.json.usage?.cost_details.tool_cost).toBe(0);
    expect(await toolCalls()).toBe(before);
  });

  it('streams the approval request with output_item.added and .done', async () => {
    const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, {
      method: 'POST',
      headers: runtime.headers(),
      body: JSON.stringify({ model: 'approver', input: 'x', stream: true }),
    });
    const events = (await response.text())
      .split('\n\n')
      .filter((frame) => frame.startsWith('event:'))
      .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as { type: string; item?: Item; response?: Resource });
    const approval = events.filter((event) => event.item?.type === 'junction:approval_request').map((event) => event.type);
    expect(approval).toEqual(['response.output_item.added', 'response.output_item.done']);
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(events.at(-1)?.response?.output.at(-1)?.type).toBe('junction:approval_request');
  });

  it('refuses approval answers that do not fit the pause', async () => {
    const { response, request } = await paused();
    const answer = { type: 'junction:approval_response', approval_request_id: request.id, approve: true };
    expect((await post({ model: 'approver', input: [answer] })).json.error.param).toBe('previous_response_id');
    expect((await post({ model: 'approver', previous_response_id: response.id, input: [{ ...answer, approval_request_id: 'apr_nope' }] })).json.error.param).toBe('input.0.approval_request_id');
    expect((await post({ model: 'approver', previous_response_id: response.id, input: [answer, { role: 'user', content: 'and also' }] })).status).toBe(400);
    expect((await post({ model: 'approver', previous_response_id: response.id, input: [{ ...answer, approve: 'yes' }] })).status).toBe(400);
  });
});

describe(`approvals on /agents/v1/chat/completions (${engineName()})`, () => {
  type Chat = {
    message_id: string;
    conversation_id: string;
    choices: Array<{ finish_reason: string; message: { content: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> } }>;
  };
  const chat = async (body: Record<string, unknown>) => {
    const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/chat/completions`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify(body) });
    return { status: response.status, json: (await response.json()) as Chat };
  };

  it('shows a paused run as a tool call, and resumes with a tool message carrying the decision', async () => {
    const before = await toolCalls();
    const paused = await chat({ model: 'approver', messages: [{ role: 'user', content: 'shout fake' }] });
    expect(paused.status).toBe(200);
    expect(paused.json.choices[0]?.finish_reason).toBe('tool_calls');
    expect(paused.json.choices[0]?.message.tool_calls?.[0]).toMatchObject({ id: 'call_fake_0', function: { name: 'echo_upper', arguments: '{"text":"fake"}' } });
    expect(await toolCalls()).toBe(before);
    const answer = { role: 'tool', tool_call_id: 'call_fake_0', content: JSON.stringify({ approve: true }) };
    const resumed = await chat({ model: 'approver', conversation_id: paused.json.conversation_id, parent_message_id: paused.json.message_id, messages: [answer] });
    expect(resumed.status).toBe(200);
    expect(resumed.json.choices[0]?.message.content).toBe('Tool echo_upper returned: FAKE');
    expect(await toolCalls()).toBe(before + 1);
    const bad = await chat({ model: 'approver', conversation_id: paused.json.conversation_id, parent_message_id: paused.json.message_id, messages: [answer] });
    expect(bad.status).toBe(400);
  });

  it('refuses an answer that is not a decision', async () => {
    const paused = await chat({ model: 'approver', messages: [{ role: 'user', content: 'x' }] });
    const reply = await chat({
      model: 'approver',
      conversation_id: paused.json.conversation_id,
      parent_message_id: paused.json.message_id,
      messages: [{ role: 'tool', tool_call_id: 'call_fake_0', content: 'sure' }],
    });
    expect(reply.status).toBe(400);
  });
});
