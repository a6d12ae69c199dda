import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';

/** An agent's model calls go through the same pipeline, so they use the response cache too, only when the agent key opts in. */
const dirs = mkdtempSync(join(tmpdir(), 'junction-cache-agents-'));
const agentsDir = join(dirs, 'agents');
let gateway: GatewayHarness;

beforeAll(async () => {
  mkdirSync(agentsDir);
  writeFileSync(join(agentsDir, 'echo.yaml'), 'name: Echo\nmodel: openai/test-echo\ninstructions: You repeat what you are told.\n');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: agentsDir, JUNCTION_TOOLS_DIR: join(dirs, 'tools'), JUNCTION_KNOWLEDGE_DIR: join(dirs, 'knowledge') });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
});
afterAll(async () => {
  await gateway.close();
  rmSync(dirs, { recursive: true, force: true });
});

const ask = (key: string, content: string) =>
  gateway.app.inject({ method: 'POST', url: '/agents/v1/chat/completions', headers: bearer(key), payload: { model: 'echo', messages: [{ role: 'user', content }] } });

async function agentHits(): Promise<number> {
  await gateway.settle();
  const result = await gateway.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_log WHERE cache_hit AND agent_id = 'echo'");
  return Number(result.rows[0]?.n ?? 0);
}

describe('agents and the response cache', () => {
  it('answers an agent’s repeated model call from the cache when its key opts in', async () => {
    const key = await gateway.key('agent', { cacheTtlSeconds: 300 });
    const first = await ask(key, 'cache my agent');
    expect(first.statusCode).toBe(200);
    const calls = gateway.openai.requests.length;
    const second = await ask(key, 'cache my agent');
    expect(second.statusCode).toBe(200);
    expect(second.json().choices[0].message.content).toBe(first.json().choices[0].message.content);
    expect(gateway.openai.requests.length).toBe(calls);
    expect(await agentHits()).toBe(1);
  });

  it('leaves an agent key without the setting out of it', async () => {
    const key = await gateway.key('agent');
    const before = await agentHits();
    await ask(key, 'never cached agent');
    const calls = gateway.openai.requests.length;
    await ask(key, 'never cached agent');
    expect(gateway.openai.requests.length).toBe(calls + 1);
    expect(await agentHits()).toBe(before);
  });
});
