import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectionError } from '../../../src/store/connection-errors.ts';
import type { Database } from '../../../src/store/database.ts';
import { openDatabase } from '../../../src/store/open-database.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * PGlite runs on a thread of its own (src/store/pglite-worker.ts), reached through
 * PgliteWorkerDatabase. What crosses the thread must behave as the engine does in place:
 * errors keep their fields, transactions keep other statements out, a notification comes
 * before the statement that sent it returns, and the thread neither holds a finished
 * process open nor lets it end while a statement is under way.
 */
const run = promisify(execFile);
let db: Database;

describe.skipIf(engineName() !== 'pglite')('the embedded engine on its own thread', () => {
  beforeAll(async () => {
    db = await openDatabase({ dataDir: 'memory://' });
    await db.exec('CREATE TABLE worker_probe (id integer PRIMARY KEY, label text NOT NULL)');
  });
  afterAll(async () => {
    await db.close();
  });

  it('returns rows with their types, and errors with the fields callers read', async () => {
    const { rows } = await db.query('SELECT 9007199254::int8 AS big, $1::jsonb AS meta, $2::timestamptz AS at, $3::bytea AS raw', [
      { a: [1] },
      new Date('2026-11-26T08:00:00Z'),
      Buffer.from([1, 2, 3]),
    ]);
    expect(rows).toEqual([{ big: 9_007_199_254, meta: { a: [1] }, at: new Date('2026-11-26T08:00:00Z'), raw: new Uint8Array([1, 2, 3]) }]);

    await db.query(`INSERT INTO worker_probe VALUES (1, 'one')`);
    const duplicate = await db.query(`INSERT INTO worker_probe VALUES (1, 'again')`).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(Error);
    expect(duplicate).toMatchObject({ code: '23505', constraint: 'worker_probe_pkey', message: expect.stringContaining('duplicate key') });
    expect(isConnectionError(duplicate)).toBe(false);

    // A parameter that cannot cross to the engine's thread is refused at once, and the next call is served.
    await expect(db.query('SELECT $1::text AS value', [() => 'not data'])).rejects.toThrow(/could not be cloned/);
    expect((await db.query('SELECT $1::text AS value', ['data'])).rows).toEqual([{ value: 'data' }]);
  });

  it('commits a transaction, rolls one back when its work throws, and runs an outside statement after it', async () => {
    await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO worker_probe VALUES (2, 'two')`);
    });
    const events: string[] = [];
    let inserted!: () => void;
    const insertedNow = new Promise<void>((resolve) => (inserted = resolve));
    const rolledBack = db
      .transaction(async (tx) => {
        await tx.query(`INSERT INTO worker_probe VALUES (3, 'uncommitted')`);
        inserted();
        await new Promise((resolve) => setTimeout(resolve, 100));
        events.push('transaction done');
        throw new Error('roll back');
      })
      .catch((error: Error) => error.message);
    await insertedNow;
    const outside = await db.query<{ id: number }>('SELECT id FROM worker_probe ORDER BY id');
    events.push('outside answered');
    expect(outside.rows).toEqual([{ id: 1 }, { id: 2 }]);
    expect(events).toEqual(['transaction done', 'outside answered']);
    expect(await rolledBack).toBe('roll back');
  });

  it('delivers a notification before the statement that sent it returns, and stops after unlisten', async () => {
    const heard: string[] = [];
    const unlisten = await db.listen('worker_probe_channel', (payload) => heard.push(payload));
    await db.query(`SELECT pg_notify('worker_probe_channel', 'first')`);
    expect(heard).toEqual(['first']);
    await unlisten();
    await db.query(`SELECT pg_notify('worker_probe_channel', 'second')`);
    expect(heard).toEqual(['first']);
  });

  it('lets an idle process end, and keeps it alive while a statement is under way', async () => {
    // The script never closes the store: an idle engine thread must not hold the process
    // open, and the sleeping statement must not be cut short by the process ending first.
    const folder = await mkdtemp(join(tmpdir(), 'junction-worker-'));
    const script = join(folder, 'never-closes.mts');
    await writeFile(
      script,
      `import { openDatabase } from ${JSON.stringify(new URL('../../../src/store/open-database.ts', import.meta.url).pathname)};
       const db = await openDatabase({ dataDir: 'memory://' });
       const { rows } = await db.query('SELECT 1 AS slept FROM pg_sleep(0.3)');
       console.log(JSON.stringify(rows));`,
    );
    try {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', script], { timeout: 45_000 });
      expect(stdout.trim()).toBe('[{"slept":1}]');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('answers a call after close with an outage (a 503), not a hang', async () => {
    const other = await openDatabase({ dataDir: 'memory://' });
    await other.close();
    const error = await other.query('SELECT 1').catch((failure: unknown) => failure);
    expect(isConnectionError(error)).toBe(true);
  });

  it("counts the engine thread's CPU apart from the calling thread's, until it stops", async () => {
    const other = await openDatabase({ dataDir: 'memory://' });
    const engineCpu = () => other.engineCpuSeconds?.() as number;
    // Opening the engine ran on its thread.
    expect(engineCpu()).toBeGreaterThan(0);

    // This thread busy: the engine's count stays where it was (it has nothing to do).
    const idleBefore = engineCpu();
    const until = performance.now() + 200;
    while (performance.now() < until);
    expect(engineCpu() - idleBefore).toBeLessThan(0.05);

    // The engine busy while this thread waits: its count grows.
    const busyBefore = engineCpu();
    await other.query('SELECT count(*) FROM generate_series(1, 300000)');
    expect(engineCpu() - busyBefore).toBeGreaterThan(0.05);

    await other.close();
    expect(other.engineCpuSeconds?.()).toBeUndefined();
  });
});
