import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/store/database.ts';
import { openDatabase } from '../../../src/store/open-database.ts';
import { OpeningDatabase } from '../../../src/store/opening-database.ts';
import { engineName, freshStorage } from '../../support/test-database.ts';

/**
 * The services are built on a store still opening (OpeningDatabase): their statements
 * must wait for the open and the migrations, a failed open must reach every caller as
 * its own error, and closing must never cut a migration short or leave the store open.
 */
let storage: Awaited<ReturnType<typeof freshStorage>>;

beforeAll(async () => {
  storage = await freshStorage();
});
afterAll(async () => {
  await storage.drop();
});

/** A promise and the function that settles it, to hold a step open. */
function gate(): { opened: Promise<void>; open(): void } {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe(`a store used while it opens (${engineName()})`, () => {
  it('runs statements and transactions issued before the open after the preparation', async () => {
    const steps: string[] = [];
    const store = new OpeningDatabase(engineName(), openDatabase(storage), async (db) => {
      steps.push('prepare');
      await db.exec('CREATE TABLE IF NOT EXISTS opening_marker (n integer); TRUNCATE opening_marker');
    });
    try {
      // Issued at once, before the engine or the pool has answered anything. (A pool runs
      // them side by side once open, so their order among themselves is not asserted.)
      const first = store.query('INSERT INTO opening_marker VALUES (1)').then(() => steps.push('first'));
      const second = store.exec('INSERT INTO opening_marker VALUES (2)').then(() => steps.push('second'));
      const inTransaction = store.transaction(async (tx) => {
        await tx.query('INSERT INTO opening_marker VALUES (4)');
        return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM opening_marker WHERE n = 4')).rows[0]?.n;
      });
      await Promise.all([first, second]);
      expect(steps[0]).toBe('prepare');
      expect(steps.slice(1).sort()).toEqual(['first', 'second']);
      expect(await inTransaction).toBe(1);
      // Once open, calls go straight to the store.
      expect((await store.query<{ n: number }>('SELECT sum(n)::int AS n FROM opening_marker')).rows).toEqual([{ n: 7 }]);
      await store.exec('DROP TABLE opening_marker');
    } finally {
      await store.close();
    }
  });

  it('delivers notifications to a listener subscribed before the open', async () => {
    const store = new OpeningDatabase(engineName(), openDatabase(storage), async () => undefined);
    try {
      let subscribed: Promise<unknown> = Promise.resolve();
      const received = new Promise<string>((resolve) => (subscribed = store.listen('opening_channel', resolve)));
      // The subscription resolves once the listener is in place: notify only then.
      await subscribed;
      await store.query("SELECT pg_notify('opening_channel', 'hello')");
      expect(await received).toBe('hello');
    } finally {
      await store.close();
    }
  });

  it('fails every call with the error of an open that failed, and closes without one', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const store = new OpeningDatabase('postgres', Promise.reject(refused), async () => undefined);
    await expect(store.query('SELECT 1')).rejects.toBe(refused);
    await expect(store.listen('anything', () => undefined)).rejects.toBe(refused);
    await expect(store.ready()).rejects.toBe(refused);
    await expect(store.close()).resolves.toBeUndefined();
  });

  it('fails calls with a failed preparation’s error and still closes the store that opened', async () => {
    const opened = openDatabase(storage);
    const refused = new Error('migration 0002 was changed after it was applied (checksum mismatch)');
    const store = new OpeningDatabase(engineName(), opened, async () => {
      throw refused;
    });
    await expect(store.query('SELECT 1')).rejects.toBe(refused);
    await store.close();
    const raw: Database = await opened;
    await expect(raw.query('SELECT 1')).rejects.toThrow();
  });

  it('closes only once a preparation under way has finished', async () => {
    const opened = openDatabase(storage);
    const migration = gate();
    const steps: string[] = [];
    const store = new OpeningDatabase(engineName(), opened, async (db) => {
      await migration.opened;
      await db.query('SELECT 1');
      steps.push('prepared');
    });
    const closed = store.close().then(() => steps.push('closed'));
    await opened;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(steps).toEqual([]);
    migration.open();
    await closed;
    expect(steps).toEqual(['prepared', 'closed']);
  });

  it('offers pool figures only for PostgreSQL, whose metrics have a pool gauge', () => {
    const never = new Promise<Database>(() => undefined);
    expect(new OpeningDatabase('pglite', never, async () => undefined).poolStats).toBeUndefined();
    expect(new OpeningDatabase('postgres', never, async () => undefined).poolStats?.()).toEqual({ total: 0, idle: 0, waiting: 0 });
  });
});
