import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/store/database.ts';
import type { CheckpointPolicy } from '../../../src/store/embedded-checkpoints.ts';
import { openPgliteEngine } from '../../../src/store/pglite-database.ts';
import { StoreDurabilityCounters } from '../../../src/store/store-durability-counters.ts';
import { syncFolderTree } from '../../../src/store/sync-folder-tree.ts';

/**
 * What keeps the embedded store's writes (PGlite in a data folder): a commit is fsynced
 * before it is answered (PGlite's own defaults never fsync), a new store's files are put on
 * the disk once, and the store checkpoints while it runs (PGlite has no checkpointer of its
 * own), so the WAL kept, and a crash's replay, stay bounded. PGlite only: the engine is the
 * subject, and PostgreSQL does all of this itself.
 */
let folder: string;
let stores = 0;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'junction-store-durability-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** An engine on a new store folder of its own, closed after `use`. */
async function withStore<T>(settings: { checkpoints?: CheckpointPolicy }, use: (db: Database, counters: StoreDurabilityCounters) => Promise<T>): Promise<T> {
  const counters = new StoreDurabilityCounters();
  stores += 1;
  const db = await openPgliteEngine(join(folder, `store-${stores}`), settings, undefined, counters);
  try {
    return await use(db, counters);
  } finally {
    await db.close();
  }
}

const setting = async (db: Database, name: string) => (await db.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name];

/** WAL written since the last checkpoint began, in bytes. */
const walSinceCheckpoint = async (db: Database) =>
  (await db.query<{ bytes: number }>('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::float8 AS bytes FROM pg_control_checkpoint()')).rows[0]?.bytes ?? Number.NaN;

/** Resolves once `done` holds, looking every 20 ms; fails after `ms`. */
async function eventually(done: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const NO_TIMED: Pick<CheckpointPolicy, 'intervalMs'> = { intervalMs: 3_600_000 };

describe.skipIf(process.env.DATABASE_URL)('the embedded store keeps what it commits', () => {
  it('fsyncs each commit before answering it, in a folder; a store in memory has no disk to sync', async () => {
    await withStore({}, async (db, counters) => {
      expect(await setting(db, 'fsync')).toBe('on');
      // Emscripten's fdatasync does nothing; its fsync reaches the disk.
      expect(await setting(db, 'wal_sync_method')).toBe('fsync');
      await db.exec('CREATE TABLE kept (id serial PRIMARY KEY, note text)');
      for (let row = 0; row < 5; row += 1) {
        const before = counters.read().syncs;
        await db.query('INSERT INTO kept (note) VALUES ($1)', [`row ${row}`]);
        expect(counters.read().syncs).toBeGreaterThan(before);
      }
      const beforeReadOnly = counters.read().syncs;
      await db.transaction(async (tx) => tx.query('SELECT count(*) FROM kept'));
      // A transaction that wrote nothing has no WAL to flush.
      expect(counters.read().syncs).toBe(beforeReadOnly);
    });
    const memory = await openPgliteEngine('memory://');
    try {
      expect(await setting(memory, 'fsync')).toBe('off');
    } finally {
      await memory.close();
    }
  });

  it('checkpoints once the WAL written reaches the policy’s size, so the WAL stays bounded', async () => {
    const policy: CheckpointPolicy = { ...NO_TIMED, walBytes: 4 * 1024 * 1024, pollMs: 25 };
    await withStore({ checkpoints: policy }, async (db, counters) => {
      await db.exec('CREATE TABLE rows_written (id bigserial PRIMARY KEY, note text)');
      let written = 0;
      for (let round = 0; round < 12; round += 1) {
        const before = await walSinceCheckpoint(db);
        await db.query(`INSERT INTO rows_written (note) SELECT repeat('w', 200) FROM generate_series(1, 5000)`);
        written += (await walSinceCheckpoint(db)) - before;
        if ((await walSinceCheckpoint(db)) >= policy.walBytes) {
          const checkpoints = counters.read().checkpoints;
          await eventually(() => counters.read().checkpoints > checkpoints, 5_000);
        }
      }
      // About 20 MB written in rounds of about 1.6 MB: a checkpoint each time 4 MB had gathered.
      expect(written).toBeGreaterThan(4 * policy.walBytes);
      expect(counters.read().checkpoints).toBeGreaterThanOrEqual(3);
      expect(counters.read().checkpointFailures).toBe(0);
      expect(await walSinceCheckpoint(db)).toBeLessThan(policy.walBytes + 2 * 1024 * 1024);
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM rows_written')).rows[0]?.n).toBe(60_000);
    });
  });

  it('checkpoints when the interval has passed with something written, and not while nothing is', async () => {
    const policy: CheckpointPolicy = { walBytes: 1024 * 1024 * 1024, intervalMs: 150, pollMs: 25 };
    await withStore({ checkpoints: policy }, async (db, counters) => {
      await db.exec('CREATE TABLE notes (id serial PRIMARY KEY, note text)');
      await eventually(() => counters.read().checkpoints >= 1, 5_000);
      const idle = counters.read().checkpoints;
      // Six intervals with nothing written.
      await new Promise((resolve) => setTimeout(resolve, 6 * policy.intervalMs));
      expect(counters.read().checkpoints).toBe(idle);
      await db.query(`INSERT INTO notes (note) VALUES ('one row')`);
      await eventually(() => counters.read().checkpoints > idle, 5_000);
      expect(await walSinceCheckpoint(db)).toBeLessThan(64 * 1024);
    });
  });
});

describe('syncFolderTree', () => {
  it('reaches every file and folder under the one it is given', async () => {
    const tree = join(folder, 'tree');
    mkdirSync(join(tree, 'a', 'b'), { recursive: true });
    mkdirSync(join(tree, 'c'), { recursive: true });
    for (const file of ['one', 'a/two', 'a/b/three', 'a/b/four']) writeFileSync(join(tree, file), file);
    // Four files and four folders (tree, a, a/b, c).
    expect(syncFolderTree(tree)).toBe(8);
  });
});
