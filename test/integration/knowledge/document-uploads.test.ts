import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { uploadKnowledgeFile } from '../../support/knowledge-upload.ts';
import { minimalPdf } from '../../support/pdf-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** Ordinary PDF and HTML uploads, extracted in the extraction thread, are indexed and found by search. */
let gateway: GatewayHarness;
let owner: ConsoleSession;

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '../../fixtures/agents-e2e');
  gateway = await startGateway({
    JUNCTION_AGENTS_DIR: join(fixtures, 'agents'),
    JUNCTION_TOOLS_DIR: join(fixtures, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(import.meta.dirname, '../../fixtures/knowledge'),
  });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  expect((await owner.request('POST', '/console/api/knowledge/collections', { name: 'manuals' })).statusCode).toBe(201);
}, 60_000);
afterAll(async () => gateway?.close());

const search = async (q: string) =>
  (await owner.request('GET', `/console/api/knowledge/search?collection=manuals&q=${encodeURIComponent(q)}`)).json<{ hits: Array<{ path: string; heading: string | null; content: string }> }>().hits;

describe(`document uploads on ${engineName()}`, () => {
  it('indexes a PDF and finds its text', async () => {
    const response = await uploadKnowledgeFile(owner, 'manuals', 'warranty.pdf', minimalPdf('The warranty covers the heating element for two years', 'Warranty'));
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ data: { collection: 'manuals', path: 'warranty.pdf', chunks: 1 } });
    const hits = await search('heating element warranty');
    expect(hits[0]).toMatchObject({ path: 'warranty.pdf' });
    expect(hits[0]?.content).toContain('heating element for two years');
  }, 60_000);

  it('indexes HTML with its headings and without scripts', async () => {
    const html = '<html><head><title>Care guide</title><script>var secret = 1;</script></head><body><h1>Care guide</h1><h2>Cleaning</h2><p>Wipe the toaster crumb tray weekly.</p></body></html>';
    expect((await uploadKnowledgeFile(owner, 'manuals', 'care.html', html)).statusCode).toBe(201);
    const hits = await search('crumb tray');
    expect(hits[0]).toMatchObject({ path: 'care.html', heading: 'Cleaning' });
    expect(hits[0]?.content).toBe('Wipe the toaster crumb tray weekly.');
  }, 60_000);
});
