import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, hashToken, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, SESSION_TOUCH_MS, touchSession } from '../../../src/console/session-repository.ts';
import type { Database } from '../../../src/store/database.ts';
import { migrate } from '../../../src/store/migrate.ts';
import { openDatabase } from '../../../src/store/open-database.ts';
import { engineName, freshStorage } from '../../support/test-database.ts';

/**
 * A console session slides its idle expiry forward as it is used, never past its absolute
 * limit, and is written at most once a SESSION_TOUCH_MS however often it is used.
 */
let storage: Awaited<ReturnType<typeof freshStorage>>;
let db: Database;
let userId: string;
let accountId: string;
const MINUTE = 60_000;

beforeAll(async () => {
  storage = await freshStorage();
  db = await openDatabase({ databaseUrl: storage.databaseUrl, dataDir: storage.dataDir });
  await migrate(db);
  accountId = (await db.query<{ id: string }>("INSERT INTO accounts (name) VALUES ('sessions') RETURNING id")).rows[0]?.id as string;
  userId = (await db.query<{ id: string }>('INSERT INTO users (email) VALUES ($1) RETURNING id', [`${randomUUID()}@example.com`])).rows[0]?.id as string;
});
afterAll(async () => {
  await db?.close();
  await storage?.drop();
});

/** The stored row of a token's session, as times. */
const stored = async (token: string) => {
  const rows = await db.query<{ last_seen_at: Date; expires_at: Date }>('SELECT last_seen_at, expires_at FROM console_sessions WHERE token_hash = $1', [hashToken(token)]);
  return rows.rows.map((row) => ({ lastSeen: row.last_seen_at.getTime(), expires: row.expires_at.getTime() }))[0];
};

describe(`console session expiry on ${engineName()}`, () => {
  it('writes a session in use once a minute, sliding its idle expiry from that write', async () => {
    const start = new Date('2026-03-01T10:00:00Z');
    const { token } = await createSession(db, userId, accountId, start);
    // Used every ten seconds for a minute less a second: one row, untouched.
    for (let second = 10; second < 60; second += 10) {
      expect(await touchSession(db, token, new Date(start.getTime() + second * 1000))).toMatchObject({ userId, accountId });
    }
    expect(await stored(token)).toMatchObject({ lastSeen: start.getTime(), expires: start.getTime() + SESSION_IDLE_MS });
    const later = new Date(start.getTime() + SESSION_TOUCH_MS);
    const touched = await touchSession(db, token, later);
    expect(touched?.expiresAt.getTime()).toBe(later.getTime() + SESSION_IDLE_MS);
    expect(await stored(token)).toMatchObject({ lastSeen: later.getTime(), expires: later.getTime() + SESSION_IDLE_MS });
  });

  it('ends a session idle past its expiry, and deletes it', async () => {
    const start = new Date('2026-03-02T10:00:00Z');
    const { token } = await createSession(db, userId, accountId, start);
    expect(await touchSession(db, token, new Date(start.getTime() + SESSION_IDLE_MS - MINUTE))).toBeDefined();
    // That use slid the expiry: an idle period the length of the first one from it is still inside.
    expect(await touchSession(db, token, new Date(start.getTime() + 2 * SESSION_IDLE_MS - 2 * MINUTE))).toBeDefined();
    expect(await touchSession(db, token, new Date(start.getTime() + 3 * SESSION_IDLE_MS))).toBeUndefined();
    expect(await stored(token)).toBeUndefined();
  });

  it('never slides a session past its absolute limit, however it is used', async () => {
    const start = new Date('2026-03-10T10:00:00Z');
    const { token } = await createSession(db, userId, accountId, start);
    let at = start.getTime();
    while (at + SESSION_IDLE_MS / 2 < start.getTime() + SESSION_ABSOLUTE_MS) {
      at += SESSION_IDLE_MS / 2;
      const session = await touchSession(db, token, new Date(at));
      expect(session?.expiresAt.getTime()).toBe(Math.min(at + SESSION_IDLE_MS, start.getTime() + SESSION_ABSOLUTE_MS));
    }
    expect(await touchSession(db, token, new Date(start.getTime() + SESSION_ABSOLUTE_MS))).toBeUndefined();
  });
});
