import { randomBytes } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/account-repository.ts';
import { insertKey } from '../../../src/keys/key-repository.ts';
import { countChunks } from '../../../src/knowledge/knowledge-repository.ts';
import { KnowledgeSync } from '../../../src/knowledge/knowledge-sync.ts';
import type { Database } from '../../../src/store/database.ts';
import { copyExampleKnowledge, openKnowledgeDatabase } from '../../support/knowledge-fixtures.ts';
import { createLexicalEmbedder } from '../../support/lexical-embedder.ts';
import { engineName } from '../../support/test-database.ts';

let db: Database;
let close: () => Promise<void>;
let knowledge: { dir: string; remove(): Promise<void> };
let accounts: string[];

const agentKey = (accountId: string, name: string) =>
  insertKey(db, { accountId, kind: 'agent', lookupId: randomBytes(8).toString('hex'), secretHash: randomBytes(32), label: name, settings: { name } });

beforeAll(async () => {
  let first: string;
  ({ db, accountId: first, close } = await openKnowledgeDatabase());
  const second = (await createAccount(db, 'knowledge-sync-second')).id;
  await agentKey(first, 'a');
  await agentKey(second, 'b');
  // The order syncAll walks the accounts in.
  const rows = await db.query<{ account_id: string }>(`SELECT DISTINCT account_id FROM api_keys WHERE kind = 'agent' AND deleted_at IS NULL`);
  accounts = rows.rows.map((row) => row.account_id);
  knowledge = await copyExampleKnowledge();
});
afterAll(async () => {
  await close();
  await knowledge.remove();
});

const until = async (check: () => Promise<boolean>, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe(`knowledge sync on ${engineName()}`, () => {
  it("indexes every account even when one account's indexing fails", async () => {
    expect(accounts).toHaveLength(2);
    const [failing, healthy] = accounts as [string, string];
    const errors: Error[] = [];
    const refusing = { modelId: 'test/refused', embed: async () => Promise.reject(new Error('insufficient credit')) };
    const sync = new KnowledgeSync({
      db,
      knowledgeDir: knowledge.dir,
      embedderFor: (accountId) => (accountId === failing ? refusing : createLexicalEmbedder()),
      onError: (error) => errors.push(error),
    });
    await sync.syncAll();
    expect(errors.map((error) => error.message)).toEqual(['insufficient credit']);
    expect((await countChunks(db, healthy)).documents).toBeGreaterThan(0);
  });

  it('keeps syncing on file changes after a sync failed', async () => {
    const errors: Error[] = [];
    let failQueries = false;
    // The store is unreachable for one sync, then back.
    const flaky = new Proxy(db, {
      get(target, property, receiver) {
        if (property === 'query' && failQueries) return async () => Promise.reject(new Error('connection lost'));
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const sync = new KnowledgeSync({ db: flaky, knowledgeDir: knowledge.dir, embedderFor: () => undefined, onError: (error) => errors.push(error), debounceMs: 20 });
    const marker = async () => (await db.query('SELECT 1 FROM knowledge_chunks WHERE content LIKE $1 LIMIT 1', ['%zebra-marker-%'])).rows.length > 0;
    try {
      sync.start();
      // The start-up sync re-indexes both accounts for full text only (no embedder now).
      const [first, second] = accounts as [string, string];
      await until(async () => (await countChunks(db, first)).documents === 12 && (await countChunks(db, second)).embedded === 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      failQueries = true;
      await appendFile(join(knowledge.dir, 'handbook', 'shipping.md'), '\n\nzebra-marker-one\n');
      await until(async () => errors.some((error) => error.message === 'connection lost'));
      failQueries = false;
      await new Promise((resolve) => setTimeout(resolve, 100));
      await appendFile(join(knowledge.dir, 'handbook', 'shipping.md'), '\n\nzebra-marker-two\n');
      await until(marker);
    } finally {
      await sync.close();
    }
  });

  it('indexes an account without agent keys when it first needs its knowledge, once, and reports each index', async () => {
    const newcomer = (await createAccount(db, 'knowledge-sync-newcomer')).id;
    const indexed: Array<{ accountId: string; documents: number }> = [];
    const sync = new KnowledgeSync({
      db,
      knowledgeDir: knowledge.dir,
      embedderFor: () => undefined,
      onError: (error) => {
        throw error;
      },
      onIndexed: (accountId, report) => indexed.push({ accountId, documents: report.collections.reduce((sum, collection) => sum + collection.documentsTotal, 0) }),
    });
    try {
      expect((await countChunks(db, newcomer)).documents).toBe(0);
      // Two requests at once wait for the same index.
      await Promise.all([sync.ensureIndexed(newcomer), sync.ensureIndexed(newcomer)]);
      expect((await countChunks(db, newcomer)).documents).toBe(12);
      expect(indexed).toEqual([{ accountId: newcomer, documents: 12 }]);
      await sync.ensureIndexed(newcomer);
      expect(indexed).toHaveLength(1);
      // From then on it is kept current with the accounts that have agent keys.
      await sync.syncAll();
      expect(indexed.map((entry) => entry.accountId).sort()).toEqual([newcomer, newcomer, ...accounts].sort());
    } finally {
      await sync.close();
    }
  });
});
