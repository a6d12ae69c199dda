import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { type ConsoleSession, signIn } from '../support/console-session.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { uploadKnowledgeFile } from '../support/knowledge-upload.ts';
import { inflateBombPdf, minimalPdf } from '../support/pdf-fixtures.ts';
import { bearer } from '../support/test-app.ts';
import { engineName } from '../support/test-database.ts';

/**
 * Uploads are tenant input: a file that claims to be huge, deep or malformed must get a
 * clear 4xx naming it, and must not slow other accounts while it is being read.
 */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let otherAccountKey: string;

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '../fixtures/agents-e2e');
  gateway = await startGateway({
    JUNCTION_AGENTS_DIR: join(fixtures, 'agents'),
    JUNCTION_TOOLS_DIR: join(fixtures, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(import.meta.dirname, '../fixtures/knowledge'),
  });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  expect((await owner.request('POST', '/console/api/knowledge/collections', { name: 'uploads' })).statusCode).toBe(201);
  const other = await createAccount(gateway.services.db, 'bystander');
  otherAccountKey = await gateway.key('model', {}, other.id);
}, 60_000);
afterAll(async () => gateway?.close());

const upload = (filename: string, content: string | Buffer) => uploadKnowledgeFile(owner, 'uploads', filename, content);
/** An upload whose body stops before its last boundary until finish(); `reading` settles once the route reads the body. */
function heldUpload(filename: string, content: Buffer) {
  const boundary = '----junction-held';
  let started = false;
  let markReading: () => void = () => {};
  const reading = new Promise<void>((resolve) => (markReading = resolve));
  const body = new Readable({
    read() {
      if (started) return;
      started = true;
      markReading();
      this.push(Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n`), content]));
    },
  });
  const response = owner.request('POST', '/console/api/knowledge/collections/uploads/documents', body, { 'content-type': `multipart/form-data; boundary=${boundary}` });
  const finish = () => {
    body.push(Buffer.from(`\r\n--${boundary}--\r\n`));
    body.push(null);
  };
  return { reading, response, finish };
}
const errorOf = (response: { json<T>(): T }) => response.json<{ error: { message: string; code: string; param: string | null } }>().error;

describe(`upload bombs on ${engineName()}`, () => {
  it('refuses a PDF that inflates to 200 MB with 413 at its inflate bound while another account keeps being served', async () => {
    const bomb = inflateBombPdf(200 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    let done = false;
    const uploaded = upload('bomb.pdf', bomb).finally(() => (done = true));
    // The other account's calls answered while the bomb was still being processed (the old code held every account until it ended).
    let servedDuringBomb = 0;
    while (!done) {
      const response = await gateway.app.inject({ method: 'GET', url: '/v1/key', headers: bearer(otherAccountKey) });
      expect(response.statusCode).toBe(200);
      if (!done) servedDuringBomb += 1;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const response = await uploaded;
    expect(response.statusCode).toBe(413);
    expect(errorOf(response)).toMatchObject({ code: 'request_too_large', param: 'file' });
    expect(errorOf(response).message).toContain("'bomb.pdf'");
    expect(servedDuringBomb).toBeGreaterThan(3);
    // The pool recovers: an ordinary PDF right after is indexed.
    const next = await upload('warranty.pdf', minimalPdf('Warranty lasts two years', 'Warranty'));
    expect(next.statusCode).toBe(201);
  }, 60_000);

  it('answers 400 naming the file for random bytes named .pdf and for a truncated PDF', async () => {
    const random = await upload('random.pdf', Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919 + 13) % 256)));
    expect(random.statusCode).toBe(400);
    expect(errorOf(random)).toMatchObject({ code: 'invalid_request', param: 'file' });
    expect(errorOf(random).message).toContain("'random.pdf'");
    const whole = minimalPdf('Refunds take five days', 'Refunds');
    const truncated = await upload('truncated.pdf', whole.subarray(0, Math.floor(whole.length / 3)));
    expect(truncated.statusCode).toBe(400);
    expect(errorOf(truncated).message).toContain("'truncated.pdf'");
  }, 60_000);

  it('stores a text file with NUL bytes without them', async () => {
    const response = await upload('nul.txt', 'Kettles\u0000 are descaled\u0000 monthly.');
    expect(response.statusCode).toBe(201);
    const stored = await gateway.services.db.query<{ content: string }>("SELECT content FROM knowledge_chunks WHERE collection = 'uploads' AND content LIKE '%descaled%'");
    expect(stored.rows.map((row) => row.content)).toEqual(['Kettles are descaled monthly.']);
  }, 60_000);

  it('refuses HTML nested 100,000 elements deep with 400', async () => {
    const deep = `<html><body>${'<div>'.repeat(100_000)}deep text${'</div>'.repeat(100_000)}</body></html>`;
    const response = await upload('deep.html', deep);
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).message).toContain("'deep.html'");
    expect(errorOf(response).message).toMatch(/nests/);
  }, 60_000);

  it('answers 413 for a text file with more text than one document may hold', async () => {
    const response = await upload('long.txt', 'word '.repeat(1_100_000));
    expect(response.statusCode).toBe(413);
    expect(errorOf(response).message).toMatch(/'long\.txt' holds more than 5,000,000 characters/);
  }, 60_000);

  it('lets one account have two uploads in progress and answers 429 to a third, naming the reason', async () => {
    // Two uploads whose bodies are still arriving hold both of the account's places, whatever the timing of the machine.
    const held = [1, 2].map((index) => heldUpload(`parallel-${index}.pdf`, minimalPdf(`Document number ${index}`, `Doc ${index}`)));
    await Promise.all(held.map((pending) => pending.reading));
    const refused = await upload('parallel-3.pdf', minimalPdf('Document number 3', 'Doc 3'));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('5');
    expect(errorOf(refused).message).toMatch(/2 uploads in progress/);
    for (const pending of held) pending.finish();
    expect(await Promise.all(held.map(async (pending) => (await pending.response).statusCode))).toEqual([201, 201]);
    // Finished uploads give their places back.
    expect((await upload('parallel-3.pdf', minimalPdf('Document number 3', 'Doc 3'))).statusCode).toBe(201);
  }, 60_000);

  it('refuses a new document in a collection that holds the most documents one may, but replaces an existing one', async () => {
    expect((await owner.request('POST', '/console/api/knowledge/collections', { name: 'full' })).statusCode).toBe(201);
    const accountId = gateway.services.defaultAccount.id;
    await gateway.services.db.query(
      "INSERT INTO knowledge_documents (account_id, collection, path, title, source_hash, chunk_count) SELECT $1, 'full', 'doc-' || n || '.md', 'Doc', 'hash', 0 FROM generate_series(1, 1000) AS n",
      [accountId],
    );
    const refused = await uploadKnowledgeFile(owner, 'full', 'one-more.md', '# One more\n\ntext');
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).message).toMatch(/'full' already holds 1,000 documents/);
    const replaced = await uploadKnowledgeFile(owner, 'full', 'doc-7.md', '# Seven\n\nReplaced text');
    expect(replaced.statusCode).toBe(201);
  }, 60_000);
});
