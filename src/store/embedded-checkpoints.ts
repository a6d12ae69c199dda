import type { Queryable } from './database.ts';
import type { StoreDurabilityCounters } from './store-durability-counters.ts';

export type CheckpointPolicy = {
  /** Checkpoint once this much WAL has been written since the last checkpoint's start. */
  walBytes: number;
  /** Checkpoint once this long has passed since the last one, if anything was written since. */
  intervalMs: number;
  /** How often the WAL written is looked at. */
  pollMs: number;
};

/**
 * PostgreSQL's own defaults are a checkpoint every 5 minutes or about every 0.5 GB of WAL.
 * WAL is replayed at start after a crash, at about 150 MB/s here on the WASM engine: 64 MB
 * keeps that under half a second. A checkpoint of the embedded store took 37-53 ms on a
 * scratch store here and 60-270 ms under the bench's full load (its 16 MB of buffers at most
 * to write, then an fsync of each file written since the last); at about 550 bytes of WAL a
 * gateway call, that load checkpointed once per 120k calls.
 */
export const DEFAULT_CHECKPOINT_POLICY: CheckpointPolicy = { walBytes: 64 * 1024 * 1024, intervalMs: 5 * 60_000, pollMs: 5_000 };

type WalPosition = { since_redo: number; insert_lsn: string };

/** WAL written since the last checkpoint began (bytes), and where WAL is written now. */
const WAL_POSITION = `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::float8 AS since_redo, pg_current_wal_insert_lsn()::text AS insert_lsn FROM pg_control_checkpoint()`;

/**
 * The embedded store's checkpointer. PostgreSQL checkpoints from a process of its own,
 * which PGlite (one backend, in single-user mode) does not have: its engine checkpointed
 * only when it closed. Until then WAL only grew (every usage row's, for the server's whole
 * life: about 270 MB for 800k small rows here), and a crash meant replaying all of it at the
 * next start (2 s for those 270 MB). This asks for a CHECKPOINT by PostgreSQL's two rules,
 * WAL written and time passed, so the WAL kept and a crash's replay stay bounded.
 *
 * A checkpoint holds the engine for its length (it is one thread): the statements behind it
 * wait, as they would behind any long statement.
 */
export class EmbeddedCheckpoints {
  readonly #db: Queryable;
  readonly #policy: CheckpointPolicy;
  readonly #counters: StoreDurabilityCounters | undefined;
  readonly #timer: NodeJS.Timeout;
  #lastCheckpointAt = Date.now();
  /**
   * Where WAL ended after the last checkpoint this made: nothing written since when it is
   * still there. Unknown until the first, so the first look after an interval checkpoints once.
   */
  #lastCheckpointEnd: string | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(db: Queryable, policy: CheckpointPolicy = DEFAULT_CHECKPOINT_POLICY, counters?: StoreDurabilityCounters) {
    this.#db = db;
    this.#policy = policy;
    this.#counters = counters;
    this.#timer = setInterval(() => {
      this.#running ??= this.#checkIn().finally(() => (this.#running = undefined));
    }, policy.pollMs);
    // Checkpoints never keep the thread alive on their own.
    this.#timer.unref();
  }

  /** No more checkpoints; resolves once one under way has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  async #checkIn(): Promise<void> {
    try {
      const position = (await this.#db.query<WalPosition>(WAL_POSITION)).rows[0];
      if (position === undefined || this.#stopped) return;
      const due = position.since_redo >= this.#policy.walBytes || (Date.now() - this.#lastCheckpointAt >= this.#policy.intervalMs && position.insert_lsn !== this.#lastCheckpointEnd);
      if (due) await this.#checkpoint();
    } catch {
      // The engine refused (it is closing, or the disk failed): counted, and tried again at the next look.
      this.#counters?.countCheckpointFailure();
    }
  }

  async #checkpoint(): Promise<void> {
    const started = process.hrtime.bigint();
    await this.#db.query('CHECKPOINT');
    this.#counters?.countCheckpoint(process.hrtime.bigint() - started);
    this.#lastCheckpointAt = Date.now();
    this.#lastCheckpointEnd = (await this.#db.query<WalPosition>(WAL_POSITION)).rows[0]?.insert_lsn;
  }
}
