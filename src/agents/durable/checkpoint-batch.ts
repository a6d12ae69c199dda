import type { Database } from '../../store/database.ts';

/** One row for each checkpoint table, in column order. */
export type CheckpointRow = [threadId: string, namespace: string, checkpointId: string, parentId: string | null, checkpoint: string, metadata: string];
export type BlobRow = [threadId: string, namespace: string, channel: string, version: string, type: string, blob: Uint8Array | null];
export type WriteRow = [threadId: string, namespace: string, checkpointId: string, taskId: string, idx: number, channel: string, type: string, blob: Uint8Array, taskPath: string];
export type Rows = { writes?: WriteRow[]; blobs?: BlobRow[]; checkpoints?: CheckpointRow[] };

type Table = { name: string; columns: string[]; key: number; casts?: Record<number, string>; conflict: string };

const TABLES = {
  writes: {
    name: 'agent_checkpoint_writes',
    columns: ['thread_id', 'checkpoint_ns', 'checkpoint_id', 'task_id', 'idx', 'channel', 'type', 'blob', 'task_path'],
    key: 5,
    conflict: '(thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob, task_path = EXCLUDED.task_path',
  },
  blobs: {
    name: 'agent_checkpoint_blobs',
    columns: ['thread_id', 'checkpoint_ns', 'channel', 'version', 'type', 'blob'],
    key: 4,
    // A (channel, version) blob never changes once written.
    conflict: '(thread_id, checkpoint_ns, channel, version) DO NOTHING',
  },
  checkpoints: {
    name: 'agent_checkpoints',
    columns: ['thread_id', 'checkpoint_ns', 'checkpoint_id', 'parent_checkpoint_id', 'checkpoint', 'metadata'],
    key: 3,
    casts: { 4: 'jsonb', 5: 'jsonb' },
    conflict: '(thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata',
  },
} satisfies Record<string, Table>;

/** Rows are serialised when written, not when queued: a thread deleted first costs nothing. */
type Entry = { threadId: string; rows: () => Promise<Rows>; urgent: boolean; resolve(): void; reject(error: unknown): void };

/**
 * How long steps nobody waits for (LangGraph's 'async' durability: foreground runs) may
 * stay unwritten. Nothing reads them but this process until the run pauses (which
 * writes them at once, see StoreCheckpointSaver.written) and a crash ends such a run
 * anyway, so the bound is only for memory: most runs finish, and are dropped, first.
 */
export const ASYNC_WRITE_DELAY_MS = 30_000;

/**
 * Group commit for checkpoint rows, as settlements are written: everything queued within
 * a short window goes out in ONE statement (an INSERT per table, chained as CTEs), so a
 * step costs at most one round trip and is atomic.
 *
 * - 'sync' steps (background runs, which another process may resume) resolve once written,
 *   at the next turn of the event loop.
 * - other steps (foreground runs: their client holds the only way to continue them, so a
 *   crash ends them anyway) resolve at once and are written with the next urgent batch,
 *   when a read or a pause asks (`idle`), or after ASYNC_WRITE_DELAY_MS; a thread deleted
 *   before that (a run that finished) is never written at all: a plain turn costs no
 *   checkpoint statement.
 *   A failed write is reported to `onError`; a later read waits for pending writes.
 */
export class CheckpointBatch {
  readonly #db: Database;
  #pending: Entry[] = [];
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #immediate = false;
  /** Threads with rows in the database (written by this instance). */
  readonly #written = new Set<string>();

  readonly #onError: (error: unknown) => void;
  readonly #beforeDurableWrite: (() => Promise<void>) | undefined;

  /**
   * `beforeDurableWrite` runs before a batch with a 'sync' step is written (the billing of
   * the calls made so far): a run resumed from a checkpoint skips the steps it records.
   */
  constructor(db: Database, onError: (error: unknown) => void, beforeDurableWrite?: () => Promise<void>) {
    this.#db = db;
    this.#onError = onError;
    this.#beforeDurableWrite = beforeDurableWrite;
  }

  add(threadId: string, rows: () => Promise<Rows>, urgent: boolean): Promise<void> {
    if (!urgent) {
      this.#pending.push({ threadId, rows, urgent, resolve: () => undefined, reject: this.#onError });
      this.#schedule(false);
      return Promise.resolve();
    }
    const written = new Promise<void>((resolve, reject) => this.#pending.push({ threadId, rows, urgent, resolve, reject }));
    this.#schedule(true);
    return written;
  }

  /** Drops the rows of `threadId` that were not written yet; true if none ever were. */
  discard(threadId: string): boolean {
    this.#pending = this.#pending.filter((entry) => {
      if (entry.threadId !== threadId) return true;
      entry.resolve();
      return false;
    });
    return !this.#written.delete(threadId);
  }

  /** Writes everything queued now, and resolves once it is written (reads wait for it). */
  async idle(): Promise<void> {
    while (this.#flushing || this.#pending.length > 0) {
      if (this.#flushing) await this.#flushing.catch(() => undefined);
      else this.#start();
    }
  }

  #schedule(urgent: boolean): void {
    if (this.#flushing) return; // the flush in progress schedules the next one
    if (urgent && !this.#immediate) {
      // setImmediate, not a microtask: the checkpoint LangGraph writes after a task's writes
      // arrives a few promise turns later, and joins the same statement.
      this.#immediate = true;
      clearTimeout(this.#timer);
      this.#timer = undefined;
      setImmediate(() => {
        this.#immediate = false;
        if (!this.#flushing) this.#start();
      });
    } else if (!this.#immediate && !this.#timer) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        if (!this.#flushing) this.#start();
      }, ASYNC_WRITE_DELAY_MS);
      this.#timer.unref();
    }
  }

  #start(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    this.#pending = [];
    this.#flushing = this.#flush(batch).finally(() => {
      this.#flushing = undefined;
      if (this.#pending.length > 0) this.#schedule(true);
    });
  }

  async #flush(batch: Entry[]): Promise<void> {
    if (batch.length === 0) return;
    try {
      if (batch.some((entry) => entry.urgent)) await this.#beforeDurableWrite?.();
      const rows = await Promise.all(batch.map((entry) => entry.rows()));
      const { sql, params } = batchStatement(rows);
      if (sql) await this.#db.query(sql, params);
      for (const entry of batch) {
        this.#written.add(entry.threadId);
        entry.resolve();
      }
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }
}

/** One INSERT per table with rows, chained as CTEs into one statement. */
function batchStatement(batch: Rows[]): { sql: string | undefined; params: unknown[] } {
  const params: unknown[] = [];
  const inserts: string[] = [];
  for (const [table, rows] of [
    [TABLES.writes, batch.flatMap((rows) => rows.writes ?? [])],
    [TABLES.blobs, batch.flatMap((rows) => rows.blobs ?? [])],
    [TABLES.checkpoints, batch.flatMap((rows) => rows.checkpoints ?? [])],
  ] as Array<[Table, unknown[][]]>) {
    const unique = lastPerKey(rows, table.key);
    if (unique.length === 0) continue;
    const values = unique.map(
      (row) =>
        `(${row
          .map((value, index) => {
            params.push(value);
            const cast = table.casts?.[index];
            return cast ? `$${params.length}::${cast}` : `$${params.length}`;
          })
          .join(', ')})`,
    );
    inserts.push(`INSERT INTO ${table.name} (${table.columns.join(', ')}) VALUES ${values.join(', ')} ON CONFLICT ${table.conflict}`);
  }
  if (inserts.length === 0) return { sql: undefined, params };
  const last = inserts.pop() as string;
  const ctes = inserts.map((insert, index) => `q${index} AS (${insert})`);
  return { sql: ctes.length > 0 ? `WITH ${ctes.join(', ')} ${last}` : last, params };
}

/** One statement may not touch a row twice (ON CONFLICT … DO UPDATE): the last row per key wins. */
function lastPerKey(rows: unknown[][], keyLength: number): unknown[][] {
  const byKey = new Map<string, unknown[]>();
  for (const row of rows) byKey.set(JSON.stringify(row.slice(0, keyLength)), row);
  return [...byKey.values()];
}
