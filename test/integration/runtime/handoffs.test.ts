import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** `handoffs: [billing]`: the model hands the conversation over; the other agent answers this turn and the next. */
const runtime = useRuntimeGateway({
  triage: 'name: Triage\nmodel: openai/test-tool\ninstructions: Route the customer.\nhandoffs: [billing]\n',
  billing: 'name: Billing\ndescription: Invoices and refunds.\nmodel: openai/test-echo\ninstructions: Handle billing.\n',
});

type Item = { type: string; name?: string; output?: string; content?: Array<{ text: string }> };
type Resource = { id: string; status: string; model: string; output: Item[] };
const post = async (body: Record<string, unknown>) => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as Resource;
};
const agentsBilled = async () => {
  await runtime.gateway.settle();
  const rows = await runtime.gateway.services.db.query<{ agent_id: string }>(`SELECT agent_id FROM usage_log WHERE agent_id IS NOT NULL ORDER BY created_at`);
  return rows.rows.map((row) => row.agent_id);
};

describe(`handoffs on ${engineName()}`, () => {
  it('hands the turn over in the same run, and the next turn goes to the agent it was handed to', async () => {
    const first = await post({ model: 'triage', input: 'I need a refund' });
    expect(first.status).toBe('completed');
    expect(first.output.map((item) => [item.type, item.name ?? null])).toEqual([
      ['junction:tool_call', 'transfer_to_billing'],
      ['message', null],
    ]);
    expect(first.output[0]?.output).toContain('Transferred to billing');
    expect(first.output[1]?.content?.[0]?.text).toBe('I need a refund'); // billing's (echo) answer
    expect(await agentsBilled()).toEqual(['triage', 'billing']);

    const second = await post({ model: 'triage', previous_response_id: first.id, input: 'and my invoice' });
    expect(second.output.map((item) => item.type)).toEqual(['message']);
    expect(second.output[0]?.content?.[0]?.text).toBe('and my invoice');
    expect(await agentsBilled()).toEqual(['triage', 'billing', 'billing']);

    // The chat endpoint follows the same conversation rule.
    const chat = await fetch(`${runtime.gateway.baseUrl}/agents/v1/chat/completions`, {
      method: 'POST',
      headers: runtime.headers(),
      body: JSON.stringify({ model: 'triage', messages: [{ role: 'user', content: 'refund please' }] }),
    });
    const started = (await chat.json()) as { conversation_id: string; choices: Array<{ message: { content: string } }> };
    expect(started.choices[0]?.message.content).toBe('refund please');
    const next = await fetch(`${runtime.gateway.baseUrl}/agents/v1/chat/completions`, {
      method: 'POST',
      headers: runtime.headers(),
      body: JSON.stringify({ model: 'triage', conversation_id: started.conversation_id, messages: [{ role: 'user', content: 'still there?' }] }),
    });
    expect(((await next.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('still there?');
    expect((await agentsBilled()).slice(3)).toEqual(['triage', 'billing', 'billing']);
  });
});
