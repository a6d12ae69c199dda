import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccount } from '../../src/accounts/account-repository.ts';
import type { Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { freshStorage } from './test-database.ts';

export const EXAMPLE_KNOWLEDGE_DIR = fileURLToPath(new URL('../../knowledge/', import.meta.url));

/** A migrated, empty database on the engine under test, with an account to index for. */
export async function openKnowledgeDatabase(): Promise<{ db: Database; accountId: string; close(): Promise<void> }> {
  const storage = await freshStorage();
  const db = await openDatabase(storage);
  await migrate(db);
  const account = await createAccount(db, 'knowledge-test');
  return {
    db,
    accountId: account.id,
    async close() {
      await db.close();
      await storage.drop();
    },
  };
}

/** A throw-away copy of the example knowledge that a test may edit. */
export async function copyExampleKnowledge(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'junction-knowledge-'));
  await cp(EXAMPLE_KNOWLEDGE_DIR, dir, { recursive: true });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
