import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PageCache } from '../../../src/store/page-cache.ts';
import { StoreNodeFS } from '../../../src/store/pglite-store-fs.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * The embedded store's page cache (src/store/pglite-page-cache-fs.ts) answers page reads
 * from memory, and must never answer one with a page the engine has since changed. The
 * engine here has a 1 MB buffer pool and its table about 3 MB, so every scan reads most
 * pages from the files: first through a cache that holds them all (8 MB), then, after a
 * restart, through one small enough (1 MB) to keep evicting and reusing its slots. Each
 * change is checked by the figures a scan computes from what it read.
 */
const ROWS = 12_000;

describe.skipIf(engineName() !== 'pglite')('the embedded store’s page cache', () => {
  let folder: string;
  let cache: PageCache;
  let db: PGlite;

  const open = async (cacheBytes: number) => {
    cache = new PageCache(cacheBytes);
    db = await PGlite.create({ fs: new StoreNodeFS(folder, cache), postgresqlconf: 'shared_buffers=1MB' });
  };
  const totals = async () => (await db.query<{ rows: number; sum: string; text: string }>('SELECT count(*)::int AS rows, sum(n)::text AS sum, sum(length(t))::text AS text FROM pages')).rows[0];

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'junction-page-cache-'));
    await open(8 * 1024 * 1024);
  });
  afterAll(async () => {
    if (!db.closed) await db.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('answers repeated scans from memory, with what the files hold', async () => {
    await db.exec(`CREATE TABLE pages (n integer, t text); INSERT INTO pages SELECT g, repeat('a', 200) FROM generate_series(1, ${ROWS}) g; CHECKPOINT`);
    const expected = { rows: ROWS, sum: String((ROWS * (ROWS + 1)) / 2), text: String(ROWS * 200) };
    expect(await totals()).toEqual(expected);
    const before = { ...cache.stats };
    expect(await totals()).toEqual(expected);
    // The second scan's pages that the pool lacks (about 240 of the table's 353) come from the cache, none from the files.
    expect(cache.stats.hits - before.hits).toBeGreaterThan(200);
    expect(cache.stats.misses - before.misses).toBe(0);
  });

  it('reads a page rewritten by the engine as rewritten', async () => {
    await db.exec("UPDATE pages SET n = n * 2, t = repeat('b', 100); CHECKPOINT");
    expect(await totals()).toEqual({ rows: ROWS, sum: String(ROWS * (ROWS + 1)), text: String(ROWS * 100) });
    await db.exec('UPDATE pages SET n = n + 1 WHERE n % 4 = 0; CHECKPOINT');
    expect(await totals()).toEqual({ rows: ROWS, sum: String(ROWS * (ROWS + 1) + ROWS / 2), text: String(ROWS * 100) });
  });

  it('forgets the pages a truncation removed, when the file grows again', async () => {
    // VACUUM truncates the emptied end of the file; the insert then writes new pages at the same page numbers.
    await db.exec('DELETE FROM pages WHERE n > 100');
    await db.exec('VACUUM pages');
    await db.exec('CHECKPOINT');
    const kept = await totals();
    expect(kept?.rows).toBe(49); // n = 2i for odd i up to 49, 2i + 1 for even i up to 48
    await db.exec(`INSERT INTO pages SELECT -g, repeat('c', 300) FROM generate_series(1, ${ROWS}) g; CHECKPOINT`);
    const grown = await totals();
    expect(grown?.rows).toBe(49 + ROWS);
    expect(BigInt(grown?.sum ?? 0)).toBe(BigInt(kept?.sum ?? 0) - BigInt((ROWS * (ROWS + 1)) / 2));
    expect(BigInt(grown?.text ?? 0)).toBe(BigInt(kept?.text ?? 0) + BigInt(ROWS * 300));
  });

  it('keeps every change across a restart, and stays right while a small cache keeps evicting', async () => {
    const before = await totals();
    await db.close();
    await open(1024 * 1024);
    expect(await totals()).toEqual(before);
    await db.exec("UPDATE pages SET t = 'e' WHERE n < 0; CHECKPOINT");
    expect(await totals()).toEqual({ ...before, text: String(BigInt(before?.text ?? 0) - BigInt(ROWS * 299)) });
    await db.exec(`TRUNCATE pages; INSERT INTO pages SELECT g, 'd' FROM generate_series(1, ${ROWS}) g`);
    await db.exec('VACUUM FULL pages');
    await db.exec('CHECKPOINT');
    expect(await totals()).toEqual({ rows: ROWS, sum: String((ROWS * (ROWS + 1)) / 2), text: String(ROWS) });
    expect(cache.size).toBe(128);
    expect(cache.stats.hits).toBeGreaterThan(0);
  });
});
