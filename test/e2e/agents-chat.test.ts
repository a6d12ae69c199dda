import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { indexKnowledge } from '../../src/knowledge/knowledge-indexer.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * The Agents API driven by the official openai client: agents as files in a temp
 * folder (so the test can edit them), fake upstreams behind the gateway's pipeline.
 */
const dirs = mkdtempSync(join(tmpdir(), 'junction-agents-'));
const agentsDir = join(dirs, 'agents');
const toolsDir = join(dirs, 'tools');
const knowledgeDir = join(dirs, 'knowledge');

const agentFile = (name: string, body: string) => writeFileSync(join(agentsDir, `${name}.yaml`), body);

let gateway: GatewayHarness;
let client: OpenAI;
let agentKey: string;

type AgentCompletion = OpenAI.ChatCompletion & { conversation_id: string; message_id: string; parent_message_id: string | null; usage: OpenAI.CompletionUsage & { cost: number } };

beforeAll(async () => {
  cpSync(join(import.meta.dirname, '../../knowledge/handbook'), join(knowledgeDir, 'handbook'), { recursive: true });
  cpSync(join(import.meta.dirname, '../fixtures/agents-e2e/tools'), toolsDir, { recursive: true });
  cpSync(join(import.meta.dirname, '../fixtures/agents-e2e/agents'), agentsDir, { recursive: true });
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: agentsDir, JUNCTION_TOOLS_DIR: toolsDir, JUNCTION_KNOWLEDGE_DIR: knowledgeDir });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  await indexKnowledge({ db: gateway.services.db, accountId: gateway.services.defaultAccount.id, rootDir: knowledgeDir });
  agentKey = await gateway.key('agent');
  client = new OpenAI({ apiKey: agentKey, baseURL: `${gateway.baseUrl}/agents/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gateway.close();
  rmSync(dirs, { recursive: true, force: true });
});

const lastUpstreamMessages = () => (gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> }).messages;
const texts = (messages: Array<{ role: string; content: unknown }>) =>
  messages.map((message) => `${message.role}:${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}`);

describe('agents as models', () => {
  it('lists the agents and their details', async () => {
    const list = await client.models.list();
    expect(list.data.map((model) => model.id).sort()).toEqual(['delegator', 'echo', 'flaky', 'helper', 'librarian', 'thinker']);
    const detail = (await client.models.retrieve('helper')) as unknown as Record<string, unknown>;
    expect(detail).toMatchObject({ id: 'helper', model: 'openai/test-tool', tools: ['echo_upper'] });
  });

  it('refuses model and provisioning keys', async () => {
    for (const kind of ['model', 'provisioning'] as const) {
      const other = new OpenAI({ apiKey: await gateway.key(kind), baseURL: `${gateway.baseUrl}/agents/v1`, maxRetries: 0 });
      await expect(other.models.list()).rejects.toMatchObject({ status: 403, code: 'wrong_key_kind' });
    }
  });
});

describe('chat with an agent', () => {
  it('answers with the agent instructions in front, and returns the tree ids', async () => {
    const completion = (await client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'hello agent' }] })) as AgentCompletion;
    expect(completion.choices[0]?.message.content).toBe('hello agent');
    expect(completion.conversation_id).toMatch(/^conv_/);
    expect(completion.message_id).toMatch(/^msg_/);
    expect(completion.parent_message_id).toBeNull();
    expect(lastUpstreamMessages()[0]).toMatchObject({ role: 'system', content: expect.stringContaining('You repeat what you are told.') });
    expect(completion.usage.cost).toBeGreaterThan(0);
  });

  it('streams reasoning and carries the ids on every chunk', async () => {
    const stream = await client.chat.completions.create({ model: 'thinker', messages: [{ role: 'user', content: 'ponder this' }], stream: true });
    let reasoning = '';
    let content = '';
    const conversationIds = new Set<string>();
    let usage: { cost?: number } | undefined;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning?: string } | undefined;
      reasoning += delta?.reasoning ?? '';
      content += delta?.content ?? '';
      conversationIds.add((chunk as unknown as { conversation_id: string }).conversation_id);
      if (chunk.usage) usage = chunk.usage as { cost?: number };
    }
    expect(reasoning.length).toBeGreaterThan(0);
    expect(content).toBe('ponder this');
    expect(conversationIds.size).toBe(1);
    expect(usage?.cost).toBeGreaterThan(0);
  });

  it('sends what a stream that broke off was billed, as a usage chunk before the error', async () => {
    await gateway.settle();
    const before = (await gateway.services.db.query<{ id: string }>(`SELECT id FROM usage_log WHERE agent_id = 'flaky'`)).rows.map((row) => row.id);
    const stream = await client.chat.completions.create({ model: 'flaky', messages: [{ role: 'user', content: 'say something long enough to be billed' }], stream: true });
    let usage: { cost?: number; completion_tokens?: number } | undefined;
    const failure = await (async () => {
      for await (const chunk of stream) if (chunk.usage) usage = chunk.usage as { cost?: number };
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    await gateway.settle();
    const billed = await gateway.services.db.query<{ cost: number; output: number }>(
      `SELECT COALESCE(sum(cost_micros), 0)::bigint AS cost, COALESCE(sum(output_tokens), 0)::int AS output FROM usage_log WHERE agent_id = 'flaky' AND NOT (id = ANY($1::text[]))`,
      [before],
    );
    expect(billed.rows[0]?.cost).toBeGreaterThan(0);
    expect(Math.round((usage?.cost ?? 0) * 1e6)).toBe(billed.rows[0]?.cost);
    expect(usage?.completion_tokens).toBe(billed.rows[0]?.output);
  });

  it('runs a server-side tool loop and bills tokens plus tool cost', async () => {
    const completion = (await client.chat.completions.create({ model: 'helper', messages: [{ role: 'user', content: 'shout it' }] })) as AgentCompletion;
    expect(completion.choices[0]?.message.content).toBe('Tool echo_upper returned: FAKE');
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    await gateway.settle();
    const rows = await gateway.services.db.query<{ endpoint: string; cost_micros: number; agent_run_id: string }>(
      `SELECT endpoint, cost_micros, agent_run_id FROM usage_log WHERE agent_id = 'helper' ORDER BY created_at`,
    );
    const run = rows.rows.filter((row) => row.agent_run_id === rows.rows.at(-1)?.agent_run_id);
    expect(run.map((row) => row.endpoint)).toEqual(['agents.chat.completions', 'agents.tool', 'agents.chat.completions']);
    expect(run.find((row) => row.endpoint === 'agents.tool')?.cost_micros).toBe(2000);
    const total = run.reduce((sum, row) => sum + row.cost_micros, 0);
    expect(Math.round(completion.usage.cost * 1e6)).toBe(total);
  });

  it("refuses a client tool named like one of the agent's own tools", async () => {
    const tools = [{ type: 'function' as const, function: { name: 'echo_upper', parameters: { type: 'object', properties: {} } } }];
    await expect(client.chat.completions.create({ model: 'helper', messages: [{ role: 'user', content: 'shout it' }], tools })).rejects.toMatchObject({
      status: 400,
      param: 'tools.0.function.name',
    });
  });

  it('puts the top knowledge chunks with their source in the model context', async () => {
    await client.chat.completions.create({ model: 'librarian', messages: [{ role: 'user', content: 'How many days do I have to return an item?' }] });
    const system = lastUpstreamMessages()[0];
    expect(system?.role).toBe('system');
    expect(String(system?.content)).toContain('source: handbook/returns-and-refunds.md');
  });
});

describe('conversation trees', () => {
  it('continues from the latest message, and branches from an earlier one without the sibling', async () => {
    const first = (await client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'one' }] })) as AgentCompletion;
    const second = (await client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'two' }], conversation_id: first.conversation_id } as never)) as AgentCompletion;
    expect(texts(lastUpstreamMessages()).slice(1)).toEqual(['user:one', 'assistant:one', 'user:two']);
    expect(second.parent_message_id).toBe(first.message_id);

    await client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'two again' }], conversation_id: first.conversation_id, parent_message_id: first.message_id } as never);
    expect(texts(lastUpstreamMessages()).slice(1)).toEqual(['user:one', 'assistant:one', 'user:two again']);

    const tree = (await (await fetch(`${gateway.baseUrl}/agents/v1/conversations/${first.conversation_id}`, { headers: { authorization: `Bearer ${agentKey}` } })).json()) as {
      messages: Array<{ id: string; parent_id: string | null }>;
    };
    expect(tree.messages).toHaveLength(6);
    expect(tree.messages.filter((message) => message.parent_id === first.message_id)).toHaveLength(2);
  });

  it('404s unknown or foreign conversations and 400s a parent of another conversation', async () => {
    await expect(client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'x' }], conversation_id: 'conv_nope' } as never)).rejects.toMatchObject({ status: 404 });
    const a = (await client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'a' }] })) as AgentCompletion;
    const b = (await client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'b' }] })) as AgentCompletion;
    await expect(
      client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'x' }], conversation_id: a.conversation_id, parent_message_id: b.message_id } as never),
    ).rejects.toMatchObject({ status: 400 });
    const otherKey = new OpenAI({ apiKey: await gateway.key('agent'), baseURL: `${gateway.baseUrl}/agents/v1`, maxRetries: 0 });
    await expect(otherKey.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'x' }], conversation_id: a.conversation_id } as never)).rejects.toMatchObject({ status: 404 });
  });
});

describe('hot reload', () => {
  it('serves an edited agent file on the next request, and keeps the last good one on a broken edit', async () => {
    agentFile('echo', 'name: Echo\nmodel: openai/test-echo\ninstructions: Version two speaks.\n');
    await expect
      .poll(
        async () => {
          await client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'v2?' }] });
          return String(lastUpstreamMessages()[0]?.content);
        },
        { timeout: 5_000, interval: 200 },
      )
      .toContain('Version two speaks.');

    agentFile('echo', 'name: Echo\nmodel: openai/test-echo\ninstructions: broken\nunknown_field: 1\n');
    await new Promise((done) => setTimeout(done, 800));
    await client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'still v2?' }] });
    expect(String(lastUpstreamMessages()[0]?.content)).toContain('Version two speaks.');
  });
});

describe('a step that calls a server tool and a client tool at once', () => {
  it('runs the server tool, stops for the client, and message_id continues with both results', async () => {
    agentFile('mixed', 'name: Mixed\nmodel: openai/test-tools-all\ninstructions: Use every tool at once.\ntools: [echo_upper]\nmax_steps: 4\n');
    await gateway.services.agentDirectory?.files.reload();
    const clientTool: OpenAI.ChatCompletionTool = {
      type: 'function',
      function: { name: 'lookup_order', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } },
    };
    const start = async () => {
      const first = (await client.chat.completions.create({ model: 'mixed', messages: [{ role: 'user', content: 'where is order 7?' }], tools: [clientTool] })) as AgentCompletion;
      expect(first.choices[0]?.finish_reason).toBe('tool_calls');
      const calls = first.choices[0]?.message.tool_calls ?? [];
      expect(calls.map((call) => (call as { function: { name: string } }).function.name)).toEqual(['lookup_order']);
      return { first, callId: calls[0]?.id ?? '' };
    };
    const answer = async (callId: string, continuation: Record<string, string>): Promise<AgentCompletion> =>
      (await client.chat.completions.create({
        model: 'mixed',
        messages: [{ role: 'tool', tool_call_id: callId, content: 'order 7 shipped' }],
        tools: [clientTool],
        ...continuation,
      } as never)) as AgentCompletion;

    // Continued from the message_id it returned: the server tool's result (echo_upper's output) is in the history.
    const one = await start();
    const byMessage = await answer(one.callId, { conversation_id: one.first.conversation_id, parent_message_id: one.first.message_id });
    expect(byMessage.choices[0]?.message.content).toMatch(/^Tools returned: .+ \| order 7 shipped$/);
    const sent = gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string; tool_call_id?: string }> };
    expect(sent.messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id)).toEqual(['call_fake_0', 'call_fake_1']);
    // Continued from the conversation's latest message: the same.
    const two = await start();
    const byConversation = await answer(two.callId, { conversation_id: two.first.conversation_id });
    expect(byConversation.choices[0]?.message.content).toBe(byMessage.choices[0]?.message.content);
  });
});
