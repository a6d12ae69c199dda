import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/store/open-database.ts';
import { openPgliteEngine } from '../../../src/store/pglite-database.ts';
import { VECTOR_INDEX_HINT_FILE } from '../../../src/store/pglite-store-memory.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * The embedded engine's settings that search speed and memory depend on
 * (src/store/pglite-database.ts): a small buffer pool unless the operator sets another
 * or the store holds large vector indexes (src/store/pglite-store-memory.ts), and no page checksums on a new store, while a store made with checksums (by an earlier
 * version) still opens as it was.
 */
const setting = async (db: { query<Row>(sql: string): Promise<{ rows: Row[] }> }, name: string) => (await db.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name];

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

  it('gives a store whose vector indexes outgrow the default pool a larger one at its next start', async () => {
    const dataDir = join(folder, 'vectors');
    const first = await openDatabase({ dataDir });
    try {
      // About 1,300 elements of 1,536 dimensions: an HNSW index of a little over 8 MB.
      await first.exec(`CREATE TABLE vectors (id integer PRIMARY KEY, embedding vector(1536));
        INSERT INTO vectors SELECT i, (SELECT array_agg(sin(i * 7919 + d))::vector(1536) FROM generate_series(1, 1536) d) FROM generate_series(1, 1300) i;
        CREATE INDEX vectors_hnsw ON vectors USING hnsw (embedding vector_cosine_ops)`);
      expect(await setting(first, 'shared_buffers')).toBe('16MB');
    } finally {
      await first.close();
    }
    const hinted = JSON.parse(await readFile(join(dataDir, VECTOR_INDEX_HINT_FILE), 'utf8')) as { vectorIndexBytes: number };
    const second = await openDatabase({ dataDir });
    try {
      const measured = (await second.query<{ bytes: number }>("SELECT pg_relation_size('vectors_hnsw')::float8 AS bytes")).rows[0]?.bytes;
      expect(hinted.vectorIndexBytes).toBeGreaterThanOrEqual(measured ?? Number.NaN);
      expect(measured).toBeGreaterThan(8 * 1024 * 1024);
      expect(await setting(second, 'shared_buffers')).toBe('32MB');
      await second.exec('DROP INDEX vectors_hnsw');
    } finally {
      await second.close();
    }
    // The operator's setting wins over the hint, and a store whose index went is back at the default.
    const set = await openDatabase({ dataDir, pgliteSharedBuffers: '48MB' });
    try {
      expect(await setting(set, 'shared_buffers')).toBe('48MB');
    } finally {
      await set.close();
    }
    const third = await openDatabase({ dataDir });
    try {
      expect(await setting(third, 'shared_buffers')).toBe('16MB');
    } finally {
      await third.close();
    }
  });

  it('measures the vector indexes a while after opening, for a server that never closes cleanly', async () => {
    const dataDir = join(folder, 'unclosed');
    await (await openDatabase({ dataDir })).close();
    await writeFile(join(dataDir, VECTOR_INDEX_HINT_FILE), JSON.stringify({ vectorIndexBytes: 100 * 1024 * 1024 }));
    const engine = await openPgliteEngine(dataDir, { vectorIndexCheckMs: 50 });
    try {
      expect(await setting(engine, 'shared_buffers')).toBe('144MB');
      const hinted = async () => (JSON.parse(await readFile(join(dataDir, VECTOR_INDEX_HINT_FILE), 'utf8')) as { vectorIndexBytes: number }).vectorIndexBytes;
      await expect.poll(hinted, { timeout: 10_000 }).toBeLessThan(1024 * 1024);
    } finally {
      await engine.close();
    }
  });

  it('corrects a stale hint as it closes', async () => {
    const dataDir = join(folder, 'stale');
    await (await openDatabase({ dataDir })).close();
    await writeFile(join(dataDir, VECTOR_INDEX_HINT_FILE), JSON.stringify({ vectorIndexBytes: 100 * 1024 * 1024 }));
    const hinted = await openDatabase({ dataDir });
    try {
      // 16 + 100 × 1.25 = 141 MB, rounded up to 16 MB steps.
      expect(await setting(hinted, 'shared_buffers')).toBe('144MB');
    } finally {
      await hinted.close();
    }
    const corrected = await openDatabase({ dataDir });
    try {
      expect(await setting(corrected, 'shared_buffers')).toBe('16MB');
    } finally {
      await corrected.close();
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
