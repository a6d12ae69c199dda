import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';

/** Knowledge in the console: collections of uploads, indexed, searchable with scores, used by agents, deletable. */
let gateway: GatewayHarness;
let owner: ConsoleSession;

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '../../fixtures/agents-e2e');
  gateway = await startGateway({
    JUNCTION_AGENTS_DIR: join(fixtures, 'agents'),
    JUNCTION_TOOLS_DIR: join(fixtures, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(import.meta.dirname, '../../fixtures/knowledge'),
  });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
});
afterAll(async () => gateway?.close());

function upload(collection: string, filename: string, content: string | Buffer) {
  const boundary = '----junction-knowledge';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    Buffer.isBuffer(content) ? content : Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return owner.request('POST', `/console/api/knowledge/collections/${collection}/documents`, body, { 'content-type': `multipart/form-data; boundary=${boundary}` });
}

const search = (q: string) => owner.request('GET', `/console/api/knowledge/search?collection=handbook&q=${encodeURIComponent(q)}`);

describe('console knowledge', () => {
  it('creates a collection, indexes an upload, and finds it with a score', async () => {
    expect((await owner.request('POST', '/console/api/knowledge/collections', { name: 'handbook' })).statusCode).toBe(201);
    expect((await owner.request('POST', '/console/api/knowledge/collections', { name: 'handbook' })).statusCode).toBe(409);
    const uploaded = await upload('handbook', 'returns.md', '# Returns\n\nCustomers may return a kettle within 45 days of delivery for a full refund.\n');
    expect(uploaded.statusCode).toBe(201);
    expect(uploaded.json()).toMatchObject({ data: { collection: 'handbook', path: 'returns.md' } });
    const found = (await search('kettle refund')).json<{ hits: Array<{ path: string; content: string; score: number }> }>();
    expect(found.hits[0]).toMatchObject({ path: 'returns.md' });
    expect(found.hits[0]?.content).toContain('45 days');
    expect(found.hits[0]?.score).toBeGreaterThan(0);
    const listed = (await owner.request('GET', '/console/api/knowledge')).json<{ data: Array<{ name: string; source: string; documents: Array<{ path: string; chunks: number }> }> }>().data;
    expect(listed.find((collection) => collection.name === 'handbook')).toMatchObject({ source: 'console', documents: [{ path: 'returns.md' }] });
  });

  it('lets a console agent use the uploaded collection', async () => {
    const saved = await owner.request('PUT', '/console/api/agents/returns-desk', {
      definition: { name: 'Returns desk', model: 'openai/test-echo', instructions: 'Answer from the handbook.', knowledge: ['handbook'] },
    });
    expect(saved.statusCode).toBe(201);
    const agentKey = await gateway.key('agent');
    const answer = await gateway.app.inject({
      method: 'POST',
      url: '/agents/v1/chat/completions',
      headers: bearer(agentKey),
      payload: { model: 'returns-desk', messages: [{ role: 'user', content: 'How long can I return a kettle?' }] },
    });
    expect(answer.statusCode).toBe(200);
    const sent = JSON.stringify(gateway.openai.requests.at(-1)?.body);
    expect(sent).toContain('45 days');
  });

  it('refuses other file types, oversized files and folder collections; deletes a document with its chunks', async () => {
    expect((await upload('handbook', 'tool.exe', 'MZ')).statusCode).toBe(400);
    expect((await upload('handbook', 'huge.txt', Buffer.alloc(10 * 1024 * 1024 + 10, 0x61))).statusCode).toBe(413);
    const documents = (await owner.request('GET', '/console/api/knowledge')).json<{ data: Array<{ name: string; documents: Array<{ id: number }> }> }>().data;
    const id = documents.find((collection) => collection.name === 'handbook')?.documents[0]?.id;
    const removed = await owner.request('DELETE', `/console/api/knowledge/collections/handbook/documents/${id}`);
    expect(removed.statusCode).toBe(200);
    expect((await search('kettle refund')).json<{ hits: unknown[] }>().hits).toHaveLength(0);
    const chunks = await gateway.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM knowledge_chunks WHERE collection = 'handbook'");
    expect(chunks.rows[0]?.n).toBe(0);
  });
});
