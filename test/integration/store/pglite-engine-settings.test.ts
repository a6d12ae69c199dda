import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/store/open-database.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * The embedded engine's settings that search speed and memory depend on
 * (src/store/pglite-database.ts): a small buffer pool unless the operator sets another,
 * and no page checksums on a new store, while a store made with checksums (by an earlier
 * version) still opens as it was.
 */
const setting = async (db: { query<Row>(sql: string): Promise<{ rows: Row[] }> }, name: string) =>
  (await db.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name];

describe.skipIf(engineName() !== 'pglite')('the embedded engine', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'junction-pglite-settings-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('makes a new store without data checksums, with a 16 MB buffer pool', async () => {
    const db = await openDatabase({ dataDir: join(folder, 'new') });
    try {
      expect(await setting(db, 'data_checksums')).toBe('off');
      expect(await setting(db, 'shared_buffers')).toBe('16MB');
    } finally {
      await db.close();
    }
  });

  it('opens a store with the buffer pool the operator set, and with the default again when it is unset', async () => {
    const dataDir = join(folder, 'sized');
    const sized = await openDatabase({ dataDir, pgliteSharedBuffers: '48MB' });
    try {
      expect(await setting(sized, 'shared_buffers')).toBe('48MB');
      await sized.exec('CREATE TABLE kept (id integer PRIMARY KEY); INSERT INTO kept VALUES (3)');
    } finally {
      await sized.close();
    }
    const reopened = await openDatabase({ dataDir });
    try {
      expect(await setting(reopened, 'shared_buffers')).toBe('16MB');
      expect((await reopened.query<{ id: number }>('SELECT id FROM kept')).rows).toEqual([{ id: 3 }]);
    } finally {
      await reopened.close();
    }
  });

  it('opens a store the same with and without its page cache (JUNCTION_PGLITE_PAGE_CACHE=0)', async () => {
    const dataDir = join(folder, 'uncached');
    const uncached = await openDatabase({ dataDir, pglitePageCacheBytes: 0 });
    try {
      await uncached.exec(`CREATE TABLE kept (id integer PRIMARY KEY); INSERT INTO kept SELECT generate_series(1, 5000)`);
    } finally {
      await uncached.close();
    }
    const cached = await openDatabase({ dataDir });
    try {
      await cached.exec('DELETE FROM kept WHERE id > 10');
      expect((await cached.query<{ n: number }>('SELECT count(*)::int AS n FROM kept')).rows).toEqual([{ n: 10 }]);
    } finally {
      await cached.close();
    }
    const again = await openDatabase({ dataDir, pglitePageCacheBytes: 0 });
    try {
      expect((await again.query<{ n: number }>('SELECT sum(id)::int AS n FROM kept')).rows).toEqual([{ n: 55 }]);
    } finally {
      await again.close();
    }
  });

  it('opens a store made with checksums and keeps them, with its rows', async () => {
    const dataDir = join(folder, 'earlier');
    const earlier = await PGlite.create({ dataDir });
    await earlier.exec(`CREATE TABLE kept (id integer PRIMARY KEY); INSERT INTO kept VALUES (7)`);
    expect(await setting(earlier, 'data_checksums')).toBe('on');
    await earlier.close();

    const db = await openDatabase({ dataDir });
    try {
      expect(await setting(db, 'data_checksums')).toBe('on');
      expect((await db.query<{ id: number }>('SELECT id FROM kept')).rows).toEqual([{ id: 7 }]);
    } finally {
      await db.close();
    }
  });
});
