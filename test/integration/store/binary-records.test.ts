import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BinaryColumnType, type BinaryValue, binaryRecordArray } from '../../../src/store/binary-records.ts';
import type { Database } from '../../../src/store/database.ts';
import { openDatabase } from '../../../src/store/open-database.ts';
import { engineName, freshStorage } from '../../support/test-database.ts';

/**
 * binaryRecordArray: rows of a composite type in PostgreSQL's binary format, read back by
 * the real engine (PGlite, and PostgreSQL with DATABASE_URL) through both ways a
 * statement runs: prepared (the settlement batch) and plain.
 */
let storage: Awaited<ReturnType<typeof freshStorage>>;
let db: Database;
let probeOid: number;

const COLUMNS: BinaryColumnType[] = ['text', 'uuid', 'integer', 'bigint', 'boolean', 'jsonb', 'timestamptz'];
const READ_BACK = 'SELECT t, u, i, b, f, j, at FROM unnest($1::probe_row[]) WITH ORDINALITY AS r(t, u, i, b, f, j, at, n) ORDER BY n';

beforeAll(async () => {
  storage = await freshStorage();
  db = await openDatabase(storage);
  await db.exec('CREATE TYPE probe_row AS (t text, u uuid, i integer, b bigint, f boolean, j jsonb, at timestamptz)');
  probeOid = Number((await db.query<{ oid: number }>(`SELECT 'probe_row'::regtype::oid::integer AS oid`)).rows[0]?.oid);
});
afterAll(async () => {
  await db.close();
  await storage.drop();
});

const probe = (rows: BinaryValue[][]) => binaryRecordArray(probeOid, COLUMNS, rows);

describe(`binary record arrays (${engineName()})`, () => {
  it('reads back every type, NULLs, text the array literal had to quote, and dates either side of 2000', async () => {
    const rows: BinaryValue[][] = [
      ['plain', '0b9f3a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b', 2_147_483_647, 9_007_199_254_740_991, true, '{"images":2}', new Date('2026-11-29T01:02:03.456Z')],
      ['"quoted", {braced}, back\\slash, NULL', 'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF', -2_147_483_648, -42, false, '[1,"two",null]', new Date('1999-12-31T23:59:59.999Z')],
      ['héllo → 世界 🚀', null, 0, 0, true, null, new Date(0)],
      ['', '00000000-0000-0000-0000-000000000000', null, null, null, '{}', null],
      // Longer than the hand-copied ASCII, and a date past 2^53 µs after 2000 (year ~2285).
      ['x'.repeat(200), 'abcdef01-2345-4678-9abc-def012345678', 1, -9_007_199_254_740_991, false, JSON.stringify({ long: 'é'.repeat(100) }), new Date('3000-01-01T00:00:00.001Z')],
    ];
    const expected = rows.map(([t, u, i, b, f, j, at]) => ({ t, u: typeof u === 'string' ? u.toLowerCase() : u, i, b, f, j: typeof j === 'string' ? JSON.parse(j) : j, at }));
    expect((await db.query(READ_BACK, [probe(rows)], { prepareAs: 'binary-records-probe' })).rows).toEqual(expected);
    expect((await db.query(READ_BACK, [probe(rows)])).rows).toEqual(expected);
  });

  it('reads back a batch larger than the kept buffer, and each array keeps its own bytes', async () => {
    const rows: BinaryValue[][] = Array.from({ length: 300 }, (_, index) => [`${index}:${'é'.repeat(1_200)}`, null, index, index, true, null, new Date(index)]);
    const large = probe(rows);
    const small = probe([['small', null, 1, 1, false, null, null]]);
    const read = (await db.query<{ t: string; i: number }>(READ_BACK, [large], { prepareAs: 'binary-records-probe' })).rows;
    expect(read).toHaveLength(300);
    expect(read[299]).toMatchObject({ t: `299:${'é'.repeat(1_200)}`, i: 299 });
    expect((await db.query(READ_BACK, [small], { prepareAs: 'binary-records-probe' })).rows).toHaveLength(1);
    // Each result is a buffer of exactly its bytes, not a view of memory the next call reuses.
    expect(small.byteOffset).toBe(0);
    expect(small.buffer.byteLength).toBe(small.byteLength);
    const again = probe([['other', null, 2, 2, true, null, null]]);
    expect(small.includes(Buffer.from('small'))).toBe(true);
    expect(again.includes(Buffer.from('other'))).toBe(true);
  });

  it('sends no rows as an empty array', async () => {
    expect((await db.query(READ_BACK, [probe([])], { prepareAs: 'binary-records-probe' })).rows).toEqual([]);
  });

  it('is refused by the engine when the rows are not of the parameter’s type', async () => {
    const wrongWidth = binaryRecordArray(probeOid, ['text'], [['only one column']]);
    await expect(db.query(READ_BACK, [wrongWidth], { prepareAs: 'binary-records-probe' })).rejects.toThrow(/column/i);
    const wrongType = binaryRecordArray(probeOid, ['text', 'text', 'integer', 'bigint', 'boolean', 'jsonb', 'timestamptz'], [['t', 'not a uuid', 1, 1, true, '{}', new Date()]]);
    await expect(db.query(READ_BACK, [wrongType], { prepareAs: 'binary-records-probe' })).rejects.toThrow(/instead of expected/);
    // The engine still answers after the refusals.
    expect((await db.query(READ_BACK, [probe([['after', null, 1, 2, false, null, null]])], { prepareAs: 'binary-records-probe' })).rows).toHaveLength(1);
  });
});

describe('binary record arrays refuse values their column cannot hold', () => {
  const one = (type: BinaryColumnType, value: BinaryValue) => () => binaryRecordArray(1, [type], [[value]]);

  it('throws before anything is sent, naming the value', () => {
    expect(one('integer', 1.5)).toThrow(/not an integer in range: 1.5/);
    expect(one('integer', 2 ** 31)).toThrow(/not an integer in range/);
    expect(one('bigint', 2 ** 53)).toThrow(/not an integer in range/);
    expect(one('bigint', Number.NaN)).toThrow(/not an integer in range/);
    expect(one('uuid', '0b9f3a4e1c2d4e5f8a9b0c1d2e3f4a5b')).toThrow(/not a uuid/);
    expect(one('uuid', '0b9f3a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5z')).toThrow(/not a uuid/);
    expect(one('timestamptz', new Date(Number.NaN))).toThrow(/not a valid date/);
    expect(one('text', 7)).toThrow(/not text: 7/);
    expect(one('boolean', 'true')).toThrow(/not a boolean/);
    expect(() => binaryRecordArray(1, ['text', 'text'], [['one value']])).toThrow(/1 values for 2 columns/);
  });
});
