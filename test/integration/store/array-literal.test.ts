import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral } from '../../../src/store/array-literal.ts';
import type { Database } from '../../../src/store/database.ts';
import { openDatabase } from '../../../src/store/open-database.ts';
import { engineName, freshStorage } from '../../support/test-database.ts';

/**
 * Array literals built by hand (src/store/array-literal.ts) carry usage rows into the
 * settlement statement: each must read back, on the engine under test, as exactly the
 * values it was built from.
 */
let db: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  const storage = await freshStorage();
  drop = storage.drop;
  db = await openDatabase(storage);
});
afterAll(async () => {
  await db?.close();
  await drop?.();
});

const readBack = async (type: string, values: Parameters<typeof arrayLiteral>[0]) => (await db.query<{ v: unknown[] }>(`SELECT $1::text::${type}[] AS v`, [arrayLiteral(values)])).rows[0]?.v;

describe(`array literals (${engineName()})`, () => {
  it('keep text exactly, whatever array syntax it holds', async () => {
    const texts = ['NULL', 'null', '', ' spaced ', 'a,b', '{braces}', 'quote " and \\ backslash', '\\"', 'ünï 字 😀', '\n\t'];
    expect(await readBack('text', [...texts, null])).toEqual([...texts, null]);
  });

  it('keep numbers, booleans, uuids, times and JSON', async () => {
    expect(await readBack('integer', [0, -7, 2_147_483_647, null])).toEqual([0, -7, 2_147_483_647, null]);
    expect((await readBack('bigint', [9_007_199_254_740_991, 0]))?.map(String)).toEqual(['9007199254740991', '0']);
    expect(await readBack('boolean', [true, false, null])).toEqual([true, false, null]);
    const id = '0b5c1b1e-8f7e-4d3a-9c2b-6a1f0e9d8c7b';
    expect(await readBack('uuid', [id, null])).toEqual([id, null]);
    const at = new Date('2026-11-27T09:15:42.123Z');
    expect(await readBack('timestamptz', [at, null])).toEqual([at, null]);
    expect(await readBack('jsonb', [JSON.stringify({ images: 2, 'odd "unit"': 0.5 }), null])).toEqual([{ images: 2, 'odd "unit"': 0.5 }, null]);
  });

  it('refuses a number that is not finite', () => {
    expect(() => arrayLiteral([1, Number.NaN])).toThrow(/not a finite number: NaN/);
    expect(() => arrayLiteral([Number.POSITIVE_INFINITY])).toThrow(/Infinity/);
  });
});
