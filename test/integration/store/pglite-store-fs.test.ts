import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreNodeFS } from '../../../src/store/pglite-store-fs.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * The embedded engine on its store's file system without a page cache (src/store/pglite-store-fs.ts):
 * missing files are answered by src/store/nodefs-missing-files.ts. PostgreSQL looks for an
 * index's free-space map before the map exists (at each page split), and must find the
 * map once VACUUM has made it.
 */
const MOUNT = '/pglite/data';

describe.skipIf(engineName() !== 'pglite')('the embedded store’s file system', () => {
  let folder: string;
  let db: PGlite;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'junction-store-fs-'));
    db = await PGlite.create({ fs: new StoreNodeFS(folder, undefined) });
  });
  afterAll(async () => {
    if (!db.closed) await db.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('looks for an index’s free-space map that is not there yet, and finds it once VACUUM makes it', async () => {
    // A b-tree asks for a recycled page at each page split; it has no map until VACUUM frees pages.
    await db.exec(`CREATE TABLE rows (n integer PRIMARY KEY, t text); INSERT INTO rows SELECT g, repeat('a', 100) FROM generate_series(1, 20000) g`);
    const path = (await db.query<{ path: string }>("SELECT pg_relation_filepath('rows_pkey') AS path")).rows[0]?.path;
    const mapPages = async () => (await db.query<{ pages: number }>("SELECT pg_relation_size('rows_pkey', 'fsm')::int AS pages")).rows[0]?.pages;
    expect(existsSync(join(folder, `${path}_fsm`))).toBe(false);
    expect(await mapPages()).toBe(0);
    await db.exec('DELETE FROM rows WHERE n > 1000');
    // Pages a VACUUM deletes become free for reuse at the next VACUUM (once no snapshot can still see them).
    await db.exec('VACUUM rows');
    await db.exec('VACUUM rows');
    expect(existsSync(join(folder, `${path}_fsm`))).toBe(true);
    expect(await mapPages()).toBeGreaterThan(0);
    // The index's freed pages are found through the map and reused: it does not grow.
    const indexBytes = async () => (await db.query<{ bytes: number }>("SELECT pg_relation_size('rows_pkey')::int AS bytes")).rows[0]?.bytes;
    const before = await indexBytes();
    await db.exec(`INSERT INTO rows SELECT g, repeat('b', 100) FROM generate_series(1001, 15000) g`);
    expect(await indexBytes()).toBe(before);
    expect((await db.query<{ rows: number; sum: string }>('SELECT count(*)::int AS rows, sum(n)::text AS sum FROM rows')).rows[0]).toEqual({ rows: 15000, sum: String((15000 * 15001) / 2) });
  });

  it('fails a missing file as NODEFS does, and finds a file made later', () => {
    const fs = db.Module.FS as unknown as { stat(path: string): { size: number } };
    const missing = (() => {
      try {
        fs.stat(`${MOUNT}/not-made-yet`);
      } catch (error) {
        return error as { name?: string; errno?: number };
      }
      return undefined;
    })();
    expect(missing).toMatchObject({ name: 'ErrnoError', errno: 44 });
    writeFileSync(join(folder, 'not-made-yet'), 'abc');
    expect(fs.stat(`${MOUNT}/not-made-yet`).size).toBe(3);
  });
});
