import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * The README's example agents (agents/, tools/, knowledge/ of this repository) on a
 * server with only OPENAI_API_KEY set, called with the official client as the README
 * shows: `support` serves without its Anthropic fallback and answers from the handbook
 * though its account got its agent key after start-up; `researcher`, whose own model is
 * Anthropic's, answers a 503 that says why rather than "no agent".
 */
const ROOT = join(import.meta.dirname, '../..');
let gateway: GatewayHarness;
let agents: OpenAI;
const warnings: string[] = [];

beforeAll(async () => {
  gateway = await startGateway({
    ANTHROPIC_API_KEY: '',
    GEMINI_API_KEY: '',
    JUNCTION_AGENTS_DIR: join(ROOT, 'agents'),
    JUNCTION_TOOLS_DIR: join(ROOT, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(ROOT, 'knowledge'),
  });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  // The account's first agent key is made after start-up, as a newcomer does.
  agents = new OpenAI({ apiKey: await gateway.key('agent'), baseURL: `${gateway.baseUrl}/agents/v1`, maxRetries: 0 });
  for (const agent of gateway.services.agentDirectory?.files.list() ?? []) {
    for (const warning of agent.warnings ?? []) warnings.push(`${agent.id}: ${warning.path}: ${warning.message}`);
  }
});
afterAll(async () => gateway?.close());

describe('the README agents with only OpenAI configured', () => {
  it('serves support without its unavailable fallback, and says so', async () => {
    const listed = (await agents.models.list()).data.map((model) => model.id);
    expect(listed).toContain('support');
    expect(warnings).toContain('support: fallback_models[0]: unknown model "anthropic/claude-sonnet-4-5" (not in the catalog: is its provider configured?); left out of the fallbacks');
  });

  it('answers from the handbook, indexed when the account first needs it', async () => {
    const answer = await agents.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'How long does standard shipping take?' }] });
    expect(answer.choices[0]?.message.content).toBe('How long does standard shipping take?');
    const sent = gateway.openai.requests.at(-1)?.body as { model: string; messages: Array<{ role: string; content: string }> };
    expect(sent.model).toBe('gpt-4o-mini');
    const system = sent.messages.find((message) => message.role === 'system')?.content ?? '';
    expect(system).toContain('shipping.md');
    expect(system).not.toContain('No matching passages');
  });

  it('answers 503 naming the file and the reason for an agent that could not load', async () => {
    const failure = await agents.chat.completions.create({ model: 'researcher', messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    const error = failure as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(503);
    expect(error.code).toBe('agent_unavailable');
    expect(error.message).toContain('researcher.yaml');
    expect(error.message).toContain('model: unknown model "anthropic/claude-sonnet-4-5"');
    // An agent that does not exist at all is still a 404.
    await expect(agents.chat.completions.create({ model: 'nobody', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 404 });
  });
});
