import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/store/database.ts';
import { openDatabase } from '../../../src/store/open-database.ts';
import { engineName, freshStorage } from '../../support/test-database.ts';

/**
 * `query(sql, params, { prepareAs })`: on PostgreSQL node-postgres's named statements, on
 * PGlite our own (src/store/pglite-prepared.ts, built on PGlite's wire-protocol calls and
 * locks). A prepared run must answer exactly as the plain query does, keep transactions
 * apart, survive an error and reach the disk.
 */
let storage: Awaited<ReturnType<typeof freshStorage>>;
let db: Database;

const ROW_SQL = `SELECT $1::bigint AS amount, $2::jsonb AS meta, $3::timestamptz AS at, $4::text AS note, $5::boolean AS flag`;

beforeAll(async () => {
  storage = await freshStorage();
  db = await openDatabase(storage);
  await db.exec('CREATE TABLE prepared_probe (id integer PRIMARY KEY, label text NOT NULL)');
});
afterAll(async () => {
  await db.close();
  await storage.drop();
});

describe(`prepared statements (${engineName()})`, () => {
  it('answer as the plain query does: types, nulls, repeated runs', async () => {
    const params = [9_007_199_254, JSON.stringify({ a: [1, 'two'] }), new Date('2026-11-26T05:00:00Z'), null, true];
    const plain = await db.query(ROW_SQL, params);
    const first = await db.query(ROW_SQL, params, { prepareAs: 'probe-row' });
    const second = await db.query(ROW_SQL, [1, '{}', new Date(0), 'x', false], { prepareAs: 'probe-row' });
    expect(first.rows).toEqual(plain.rows);
    expect(first.rows[0]).toEqual({ amount: 9_007_199_254, meta: { a: [1, 'two'] }, at: new Date('2026-11-26T05:00:00Z'), note: null, flag: true });
    expect(second.rows[0]).toEqual({ amount: 1, meta: {}, at: new Date(0), note: 'x', flag: false });
  });

  it('report affected rows, and a failed run leaves the statement usable', async () => {
    const insert = 'INSERT INTO prepared_probe (id, label) VALUES ($1, $2)';
    expect((await db.query(insert, [1, 'one'], { prepareAs: 'probe-insert' })).rowCount).toBe(1);
    await expect(db.query(insert, [1, 'again'], { prepareAs: 'probe-insert' })).rejects.toThrow(/duplicate key/);
    expect((await db.query(insert, [2, 'two'], { prepareAs: 'probe-insert' })).rowCount).toBe(1);
    const update = await db.query('UPDATE prepared_probe SET label = upper(label) WHERE id <= $1', [2], { prepareAs: 'probe-update' });
    expect(update.rowCount).toBe(2);
    expect((await db.query('SELECT label FROM prepared_probe ORDER BY id')).rows).toEqual([{ label: 'ONE' }, { label: 'TWO' }]);
  });

  it('answer the next statements after one that cannot be prepared or whose parameters do not bind', async () => {
    await expect(db.query('SELEC 1', [], { prepareAs: 'probe-syntax' })).rejects.toThrow(/syntax error/);
    const plusOne = 'SELECT $1::integer + 1 AS n';
    expect((await db.query(plusOne, [7], { prepareAs: 'probe-plus-one' })).rows).toEqual([{ n: 8 }]);
    await expect(db.query(plusOne, ['seven'], { prepareAs: 'probe-plus-one' })).rejects.toThrow(/invalid input syntax/);
    expect((await db.query(plusOne, [8], { prepareAs: 'probe-plus-one' })).rows).toEqual([{ n: 9 }]);
  });

  it('refuse a second text under a name already prepared', async () => {
    await db.query('SELECT 1 AS one', [], { prepareAs: 'probe-name' });
    await expect(db.query('SELECT 2 AS two', [], { prepareAs: 'probe-name' })).rejects.toThrow(/probe-name/);
  });

  it('never answer one text with another’s statement, even when two first runs race', async () => {
    const runs = await Promise.allSettled([
      db.query<{ one?: number }>('SELECT 1 AS one', [], { prepareAs: 'probe-race' }),
      db.query<{ two?: number }>('SELECT 2 AS two', [], { prepareAs: 'probe-race' }),
    ]);
    const [first, second] = runs;
    if (first?.status === 'fulfilled') expect(first.value.rows).toEqual([{ one: 1 }]);
    if (second?.status === 'fulfilled') expect(second.value.rows).toEqual([{ two: 2 }]);
    // PGlite is one session: the second text is refused. PostgreSQL may prepare each on its own connection.
    if (engineName() === 'pglite') expect(runs.map((run) => run.status)).toEqual(['fulfilled', 'rejected']);
  });

  it('never run inside another caller’s open transaction', async () => {
    let inserted!: () => void;
    const insertedNow = new Promise<void>((resolve) => (inserted = resolve));
    const rolledBack = db
      .transaction(async (tx) => {
        await tx.query(`INSERT INTO prepared_probe (id, label) VALUES (99, 'uncommitted')`);
        inserted();
        await new Promise((resolve) => setTimeout(resolve, 100));
        throw new Error('roll back');
      })
      .catch((error: Error) => error.message);
    await insertedNow;
    const seen = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM prepared_probe WHERE id = $1', [99], { prepareAs: 'probe-count' });
    expect(seen.rows[0]?.count).toBe(0);
    expect(await rolledBack).toBe('roll back');
  });

  it.skipIf(engineName() !== 'pglite')('are planned once on PGlite, and what they write reaches the data folder', async () => {
    const prepared = await db.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
    expect(prepared.rows.map((row) => row.name)).toEqual(expect.arrayContaining(['probe-insert', 'probe-row', 'probe-update']));

    const dataDir = await mkdtemp(join(tmpdir(), 'junction-prepared-'));
    try {
      const onDisk = await openDatabase({ dataDir });
      await onDisk.exec('CREATE TABLE kept (id integer PRIMARY KEY)');
      await onDisk.query('INSERT INTO kept (id) VALUES ($1)', [7], { prepareAs: 'kept-insert' });
      await onDisk.close();
      const reopened = await openDatabase({ dataDir });
      expect((await reopened.query('SELECT id FROM kept')).rows).toEqual([{ id: 7 }]);
      await reopened.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
