import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/store/database.ts';
import { migrate } from '../../../src/store/migrate.ts';
import { openDatabase } from '../../../src/store/open-database.ts';
import { recordStatements } from '../../support/statement-recorder.ts';
import { engineName, freshStorage } from '../../support/test-database.ts';

/**
 * Every start of an existing store runs `migrate`: with nothing pending it must cost
 * one read (no lock, no transaction per file), and still refuse a file that was
 * changed after it was applied.
 */
let storage: Awaited<ReturnType<typeof freshStorage>>;
let db: Database;
let dir: string;

beforeAll(async () => {
  storage = await freshStorage();
  db = await openDatabase(storage);
  dir = mkdtempSync(join(tmpdir(), 'junction-migrations-'));
  writeFileSync(join(dir, '0001_first.sql'), 'CREATE TABLE first_table (id integer PRIMARY KEY);');
  writeFileSync(join(dir, '0002_second.sql'), 'CREATE TABLE second_table (id integer PRIMARY KEY);');
});
afterAll(async () => {
  await db.close();
  await storage.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe(`migrate on an existing store (${engineName()})`, () => {
  it('applies new files once, then starts again with one read and no transaction', async () => {
    expect(await migrate(db, dir)).toEqual(['0001_first', '0002_second']);

    const { statements, stop } = recordStatements(db);
    try {
      expect(await migrate(db, dir)).toEqual([]);
    } finally {
      stop();
    }
    expect(statements).toEqual(['SELECT version, checksum FROM schema_migrations']);
  });

  it('applies a file added later, and only that one', async () => {
    writeFileSync(join(dir, '0003_third.sql'), 'CREATE TABLE third_table (id integer PRIMARY KEY);');
    expect(await migrate(db, dir)).toEqual(['0003_third']);
    const tables = await db.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE tablename IN ('first_table', 'second_table', 'third_table') ORDER BY 1");
    expect(tables.rows.map((row) => row.name)).toEqual(['first_table', 'second_table', 'third_table']);
  });

  it('refuses a file changed after it was applied', async () => {
    writeFileSync(join(dir, '0002_second.sql'), 'CREATE TABLE second_table (id bigint PRIMARY KEY);');
    await expect(migrate(db, dir)).rejects.toThrow('migration 0002_second was changed after it was applied (checksum mismatch)');
  });
});
