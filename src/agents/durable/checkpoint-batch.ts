import type { Database } from '../../store/database.ts';

/** One row for each checkpoint table, in column order. */
export type CheckpointRow = [threadId: string, namespace: string, checkpointId: string, parentId: string | null, checkpoint: string, metadata: string];
export type BlobRow = [threadId: string, namespace: string, channel: string, version: string, type: string, blob: Uint8Array | null];
export type WriteRow = [threadId: string, namespace: string, checkpointId: string, taskId: string, idx: number, channel: string, type: string, blob: Uint8Array, taskPath: string];

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

type Pending = { writes: WriteRow[]; blobs: BlobRow[]; checkpoints: CheckpointRow[]; done: Array<{ resolve(): void; reject(error: unknown): void }> };
const empty = (): Pending => ({ writes: [], blobs: [], checkpoints: [], done: [] });

/**
 * Group commit for checkpoint rows. LangGraph stores a finished task's writes and then,
 * in the same turn of the event loop, the step's checkpoint: both are queued here and
 * written by ONE statement (data-modifying CTEs), so a step costs one round trip and is
 * atomic. Rows queued while a statement runs go out together in the next one.
 */
export class CheckpointBatch {
  readonly #db: Database;
  #pending = empty();
  #flushing: Promise<void> | undefined;
  #scheduled = false;

  constructor(db: Database) {
    this.#db = db;
  }

  add(rows: Partial<Pick<Pending, 'writes' | 'blobs' | 'checkpoints'>>): Promise<void> {
    this.#pending.writes.push(...(rows.writes ?? []));
    this.#pending.blobs.push(...(rows.blobs ?? []));
    this.#pending.checkpoints.push(...(rows.checkpoints ?? []));
    const written = new Promise<void>((resolve, reject) => this.#pending.done.push({ resolve, reject }));
    this.#schedule();
    return written;
  }

  /** Resolves once everything queued before the call is written (reads wait for it). */
  async idle(): Promise<void> {
    while (this.#flushing || this.#scheduled || this.#pending.done.length > 0) {
      if (this.#flushing) await this.#flushing.catch(() => undefined);
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  #schedule(): void {
    if (this.#scheduled || this.#flushing) return;
    this.#scheduled = true;
    // setImmediate, not a microtask: the checkpoint LangGraph writes right after a task's
    // writes arrives after a few promise turns, and must join the same statement.
    setImmediate(() => {
      this.#scheduled = false;
      this.#flushing = this.#flush().finally(() => {
        this.#flushing = undefined;
        if (this.#pending.done.length > 0) this.#schedule();
      });
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = empty();
    if (batch.done.length === 0) return;
    try {
      const { sql, params } = batchStatement(batch);
      if (sql) await this.#db.query(sql, params);
      for (const waiter of batch.done) waiter.resolve();
    } catch (error) {
      for (const waiter of batch.done) waiter.reject(error);
    }
  }
}

/** One INSERT per table with rows, chained as CTEs into one statement. */
function batchStatement(batch: Pending): { sql: string | undefined; params: unknown[] } {
  const params: unknown[] = [];
  const inserts: string[] = [];
  for (const [table, rows] of [
    [TABLES.writes, batch.writes],
    [TABLES.blobs, batch.blobs],
    [TABLES.checkpoints, batch.checkpoints],
  ] as Array<[Table, unknown[][]]>) {
    const unique = lastPerKey(rows, table.key);
    if (unique.length === 0) continue;
    const values = unique.map((row) => `(${row.map((value, index) => {
      params.push(value);
      const cast = table.casts?.[index];
      return cast ? `$${params.length}::${cast}` : `$${params.length}`;
    }).join(', ')})`);
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
