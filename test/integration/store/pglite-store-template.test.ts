import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_DIR_LOCK_FILE } from '../../../src/store/data-dir-lock.ts';
import type { Database } from '../../../src/store/database.ts';
import { openPgliteEngine } from '../../../src/store/pglite-database.ts';
import { readStoreTemplate } from '../../../src/store/pglite-store-template.ts';

/**
 * New embedded stores start from a kept empty one instead of running initdb each time
 * (src/store/pglite-store-template.ts): the first new store keeps it, the next new ones
 * load it, an existing store is never touched by it, and a damaged one is replaced.
 */
const tables = async (db: Database) => (await db.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).rows.map((row) => row.tablename);

async function withEngine<T>(dataDir: string, templateDir: string, use: (db: Database) => Promise<T>): Promise<T> {
  const db = await openPgliteEngine(dataDir, {}, templateDir);
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}

const templateFiles = (templateDir: string) => (existsSync(templateDir) ? readdirSync(templateDir).filter((name) => name.endsWith('.tar')) : []);

describe.skipIf(process.env.DATABASE_URL)('new embedded stores', () => {
  let folder: string;
  let templateDir: string;
  let templateFile: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'junction-store-template-'));
    templateDir = join(folder, 'templates');
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('keeps the first new store’s empty folder as a tar archive', async () => {
    await withEngine('memory://', templateDir, async (db) => {
      expect(await tables(db)).toEqual([]);
      await db.query('CREATE TABLE written_after (id integer)');
    });
    const [name] = templateFiles(templateDir);
    expect(name).toBeDefined();
    templateFile = join(templateDir, name as string);
    expect(await readStoreTemplate(templateFile)).toBeDefined();
    // Kept before anything was written: a store loaded from it is empty.
    await withEngine('memory://', templateDir, async (db) => expect(await tables(db)).toEqual([]));
  });

  it('starts the next new stores, in memory and in a folder, from the kept one, and never an existing store', async () => {
    const existing = join(folder, 'existing');
    await withEngine(existing, templateDir, async (db) => db.query('CREATE TABLE mine (id integer)'));

    // A kept folder with a marker in it: a store holding the marker was loaded from it.
    const marked = await PGlite.create({ loadDataDir: new Blob([readFileSync(templateFile)]) });
    await marked.exec('CREATE TABLE from_template (id integer)');
    writeFileSync(templateFile, new Uint8Array(await (await marked.dumpDataDir('none')).arrayBuffer()));
    await marked.close();

    await withEngine('memory://', templateDir, async (db) => expect(await tables(db)).toEqual(['from_template']));
    const fresh = join(folder, 'fresh');
    mkdirSync(fresh);
    await withEngine(fresh, templateDir, async (db) => {
      expect(await tables(db)).toEqual(['from_template']);
      await db.query('CREATE TABLE added (id integer)');
    });
    await withEngine(fresh, templateDir, async (db) => expect(await tables(db)).toEqual(['added', 'from_template']));
    await withEngine(existing, templateDir, async (db) => expect(await tables(db)).toEqual(['mine']));
  });

  it('makes the store by initdb when the kept one will not load, keeping the folder’s lock, and keeps a good one again', async () => {
    // A tar header that passes the signature check, then nothing a store needs.
    const damaged = Buffer.alloc(1024);
    damaged.write('ustar', 257, 'latin1');
    writeFileSync(templateFile, damaged);
    const store = join(folder, 'after-damage');
    mkdirSync(store);
    writeFileSync(join(store, DATA_DIR_LOCK_FILE), '{"pid":1}\n');
    await withEngine(store, templateDir, async (db) => expect(await tables(db)).toEqual([]));
    expect(existsSync(join(store, DATA_DIR_LOCK_FILE))).toBe(true);
    expect(statSync(templateFile).size).toBeGreaterThan(1024 * 1024);
    await withEngine('memory://', templateDir, async (db) => expect(await tables(db)).toEqual([]));
  });

  it('keeps only PostgreSQL’s files: a store loaded from it keeps its own lock file and gets nobody else’s', async () => {
    const ownTemplates = join(folder, 'templates-from-a-folder');
    const first = join(folder, 'first-in-a-folder');
    mkdirSync(first);
    writeFileSync(join(first, DATA_DIR_LOCK_FILE), '{"pid":11}\n');
    writeFileSync(join(first, 'notes.txt'), 'left here by someone');
    await withEngine(first, ownTemplates, async (db) => expect(await tables(db)).toEqual([]));
    expect(templateFiles(ownTemplates)).toHaveLength(1);

    const next = join(folder, 'next-in-a-folder');
    mkdirSync(next);
    writeFileSync(join(next, DATA_DIR_LOCK_FILE), '{"pid":22}\n');
    await withEngine(next, ownTemplates, async (db) => expect(await tables(db)).toEqual([]));
    expect(readFileSync(join(next, DATA_DIR_LOCK_FILE), 'utf8')).toBe('{"pid":22}\n');
    expect(existsSync(join(next, 'notes.txt'))).toBe(false);
    expect(existsSync(join(next, 'PG_VERSION'))).toBe(true);
  });
});
