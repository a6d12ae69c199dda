import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/database.ts';
import { MIGRATIONS_DIR, migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { engineName, freshStorage } from '../support/test-database.ts';

/**
 * Set-password links issued before invitations named no account, and some may have been
 * asked for by another account (issue 63, item 7). Migration 0013 keeps the ones that
 * can only belong to one account, bound to it, and retires the rest.
 */
let storage: Awaited<ReturnType<typeof freshStorage>>;
let db: Database;
let dir: string;

const copyMigrations = (upTo: number) => {
  for (const file of readdirSync(MIGRATIONS_DIR).filter((name) => /^\d{4}_/.test(name) && Number(name.slice(0, 4)) <= upTo)) copyFileSync(join(MIGRATIONS_DIR, file), join(dir, file));
};

beforeAll(async () => {
  storage = await freshStorage();
  db = await openDatabase(storage);
  dir = mkdtempSync(join(tmpdir(), 'junction-0013-'));
  copyMigrations(12);
  await migrate(db, dir);
});
afterAll(async () => {
  await db.close();
  await storage.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe(`migration 0013 on links issued before invitations (${engineName()})`, () => {
  it('binds an unambiguous link to its account and retires the ones another account may have asked for', async () => {
    const account = async (name: string) => (await db.query<{ id: string }>('INSERT INTO accounts (name) VALUES ($1) RETURNING id', [name])).rows[0]?.id as string;
    const [a, b] = [await account('a'), await account('b')];
    const pending = async (email: string, accounts: string[], links: number) => {
      const userId = (await db.query<{ id: string }>('INSERT INTO users (email) VALUES ($1) RETURNING id', [email])).rows[0]?.id as string;
      for (const accountId of accounts) await db.query("INSERT INTO memberships (user_id, account_id, role) VALUES ($1, $2, 'member')", [userId, accountId]);
      for (let index = 0; index < links; index += 1) {
        await db.query("INSERT INTO one_time_tokens (token_hash, purpose, user_id, expires_at) VALUES ($1, 'set_password', $2, now() + interval '7 days')", [Buffer.from(`${email}-${index}`), userId]);
      }
    };
    await pending('only-a@x.test', [a], 1);
    await pending('a-and-b@x.test', [a, b], 2);
    // Added by B while pending in A, then removed from B: one membership, but two links.
    await pending('removed-from-b@x.test', [a], 2);

    copyMigrations(13);
    expect(await migrate(db, dir)).toEqual(['0013_invitations_playground_keys']);
    const rows = await db.query<{ email: string; account_id: string | null; live: boolean }>(
      "SELECT u.email, t.account_id, t.used_at IS NULL AS live FROM one_time_tokens t JOIN users u ON u.id = t.user_id WHERE t.purpose = 'set_password' ORDER BY u.email, t.token_hash",
    );
    expect(rows.rows).toEqual([
      { email: 'a-and-b@x.test', account_id: null, live: false },
      { email: 'a-and-b@x.test', account_id: null, live: false },
      { email: 'only-a@x.test', account_id: a, live: true },
      { email: 'removed-from-b@x.test', account_id: null, live: false },
      { email: 'removed-from-b@x.test', account_id: null, live: false },
    ]);
  });
});
