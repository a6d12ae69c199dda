import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * A turn continued from inside a tool step (a response waiting for approval, or the
 * assistant message of a client tool call) answers the calls left open as not run, so the
 * model request is a valid transcript; the approvals of that response are closed.
 */
const runtime = useRuntimeGateway({
  approver: 'name: Approver\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [{ name: echo_upper, require_approval: true }]\n',
  plain: 'name: Plain\nmodel: openai/test-tool\ninstructions: Use the tools you are given.\n',
});

type Message = { role: string; content?: unknown; tool_calls?: Array<{ id: string }>; tool_call_id?: string };
const lastModelRequest = () => (runtime.gateway.openai.requests.filter((request) => request.path === '/v1/chat/completions').at(-1)?.body ?? {}) as { messages: Message[] };

/** Every assistant tool call is followed by its result before the next user or assistant message. */
function expectValidTranscript(messages: Message[]) {
  let open = new Set<string>();
  for (const message of messages) {
    if (message.role === 'tool') open.delete(message.tool_call_id ?? '');
    else {
      expect([...open], JSON.stringify(messages)).toEqual([]);
      open = new Set((message.tool_calls ?? []).map((call) => call.id));
    }
  }
}

const post = async (path: string, body: Record<string, unknown>) => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1${path}`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> & { id: string; output: Array<{ type: string; id: string }>; error?: { message: string } } };
};

describe(`continuations from inside a tool step on ${engineName()}`, () => {
  it('Responses: a plain turn after a response waiting for approval sends a valid transcript and closes that approval', async () => {
    const paused = await post('/responses', { model: 'approver', input: 'shout fake' });
    const request = paused.json.output.find((item) => item.type === 'junction:approval_request');
    expect(request).toBeDefined();
    const next = await post('/responses', { model: 'approver', previous_response_id: paused.json.id, input: 'never mind, just say hi', tools: [] });
    expect(next.status, JSON.stringify(next.json)).toBe(200);
    const sent = lastModelRequest().messages;
    expectValidTranscript(sent);
    expect(sent.find((message) => message.role === 'tool')?.content).toContain('Not run: the conversation moved on');

    const late = await post('/responses', {
      model: 'approver',
      previous_response_id: paused.json.id,
      input: [{ type: 'junction:approval_response', approval_request_id: request?.id, approve: true }],
    });
    expect(late.status).toBe(409);
    expect(late.json.error?.message).toContain('moved on');
  });

  it('chat completions: a user message from the assistant message of a client tool call sends a valid transcript', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } }];
    const first = await post('/chat/completions', { model: 'plain', messages: [{ role: 'user', content: 'look it up' }], tools });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const next = await post('/chat/completions', {
      model: 'plain',
      conversation_id: first.json.conversation_id,
      parent_message_id: first.json.message_id,
      messages: [{ role: 'user', content: 'forget it' }],
    });
    expect(next.status, JSON.stringify(next.json)).toBe(200);
    const sent = lastModelRequest().messages;
    expect(sent.some((message) => (message.tool_calls ?? []).length > 0)).toBe(true);
    expectValidTranscript(sent);
  });
});
