import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { runtimeFolders } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * Text Junction did not check at its edge (a tool's result, the model's answer that repeats
 * it) may hold a NUL, which PostgreSQL cannot store: the turn is stored without it instead of
 * failing after the model call was billed and losing the answer.
 */
const folders = runtimeFolders({
  reader: 'name: Reader\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [nul_text]\n',
});
writeFileSync(
  join(folders.root, 'tools', 'nul-text.ts'),
  "export default { name: 'nul_text', description: 'Returns text with a NUL.', parameters: { type: 'object', properties: {} }, execute: () => 'before\\u0000after' };\n",
);

let gateway: GatewayHarness;
let headers: Record<string, string>;
beforeAll(async () => {
  gateway = await startGateway(folders.env);
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  headers = { authorization: `Bearer ${await gateway.key('agent')}`, 'content-type': 'application/json' };
});
afterAll(async () => {
  await gateway?.close();
  folders.remove();
});

type Item = { type: string; output?: string | null; content?: Array<{ text: string }> };

describe(`a tool result and an answer holding a NUL on ${engineName()}`, () => {
  it('are answered, stored without the NUL, and can be read back and continued', async () => {
    const created = await fetch(`${gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers, body: JSON.stringify({ model: 'reader', input: 'read it' }) });
    expect(created.status).toBe(200);
    const response = (await created.json()) as { id: string; status: string; output: Item[] };
    expect(response.status).toBe('completed');
    expect(response.output.at(-1)?.content?.[0]?.text).toContain('Tool nul_text returned: before');

    const stored = await fetch(`${gateway.baseUrl}/agents/v1/responses/${response.id}`, { headers });
    expect(stored.status).toBe(200);
    const text = JSON.stringify(await stored.json());
    expect(text).toContain('beforeafter');
    expect(text).not.toContain('\\u0000');

    const next = await fetch(`${gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers, body: JSON.stringify({ model: 'reader', input: 'and again', previous_response_id: response.id }) });
    expect(next.status).toBe(200);
  });

  it('on the chat endpoint too, whose conversation keeps the turn', async () => {
    const answered = await fetch(`${gateway.baseUrl}/agents/v1/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'reader', messages: [{ role: 'user', content: 'read it' }] }),
    });
    expect(answered.status).toBe(200);
    const chat = (await answered.json()) as { conversation_id: string };
    const conversation = await fetch(`${gateway.baseUrl}/agents/v1/conversations/${chat.conversation_id}`, { headers });
    expect(conversation.status).toBe(200);
    expect(JSON.stringify(await conversation.json())).toContain('beforeafter');
  });
});
