import { randomUUID } from 'node:crypto';
import type { Database } from './database.ts';

/** What budget leases need to know about the process that holds them. */
export type LeaseHolder = {
  readonly id: string;
  /** Increases when another process reclaimed this one's leases. */
  readonly epoch: number;
  canServeLeases(): boolean;
  onReclaimed(listener: () => void): void;
};

/** A holder for processes that never register (short-lived tools): serves only top-ups made now. */
export const unregisteredHolder = (id: string): LeaseHolder => ({ id, epoch: 0, canServeLeases: () => true, onReclaimed: () => undefined });

/** A process silent this long is presumed dead (JUNCTION_LEASE_TIMEOUT_SECONDS); it heart-beats six times as often. */
export const STALE_AFTER_SECONDS = 30;

/**
 * Each gateway process registers itself in `lease_holders`: budget leases it holds
 * hang off its row, and key changes wait for the acknowledgement of every live one.
 */
export class ProcessRegistration implements LeaseHolder {
  readonly id = randomUUID();
  readonly #db: Database;
  #timer: NodeJS.Timeout | undefined;
  #lastConfirmed = 0;
  #epoch = 0;
  readonly #onReclaimed: Array<() => void> = [];
  readonly #staleAfterSeconds: number;

  constructor(db: Database, staleAfterSeconds = STALE_AFTER_SECONDS) {
    this.#db = db;
    this.#staleAfterSeconds = staleAfterSeconds;
  }

  async start(): Promise<void> {
    await this.#db.query('INSERT INTO lease_holders (id) VALUES ($1)', [this.id]);
    this.#lastConfirmed = performance.now();
    this.#timer = setInterval(() => void this.heartbeat().catch(() => undefined), (this.#staleAfterSeconds * 1000) / 6);
    this.#timer.unref();
  }

  /**
   * Confirms this process is alive. If its row is gone, another process found it stale
   * and reclaimed its leases: the leases held in memory are void (listeners drop them),
   * and the process registers again under a new epoch.
   */
  async heartbeat(): Promise<void> {
    const result = await this.#db.query('UPDATE lease_holders SET heartbeat_at = now() WHERE id = $1 RETURNING id', [this.id]);
    if (result.rowCount === 0) {
      this.#epoch += 1;
      for (const listener of this.#onReclaimed) listener();
      await this.#db.query('INSERT INTO lease_holders (id) VALUES ($1) ON CONFLICT (id) DO NOTHING', [this.id]);
    }
    this.#lastConfirmed = performance.now();
  }

  get epoch(): number {
    return this.#epoch;
  }

  /**
   * Leases are served from memory only while the last confirmed heartbeat is younger
   * than half the stale threshold: other processes reclaim them only after the whole
   * threshold, so a process cut off from the database stops spending its leases well
   * before anyone else can take the same money back.
   */
  canServeLeases(): boolean {
    return performance.now() - this.#lastConfirmed < (this.#staleAfterSeconds * 1000) / 2;
  }

  onReclaimed(listener: () => void): void {
    this.#onReclaimed.push(listener);
  }

  /** Ids of the other processes that have shown life recently. */
  async otherLiveProcesses(): Promise<string[]> {
    const result = await this.#db.query<{ id: string }>(`SELECT id FROM lease_holders WHERE id <> $1 AND heartbeat_at > now() - make_interval(secs => $2)`, [this.id, this.#staleAfterSeconds]);
    return result.rows.map((row) => row.id);
  }

  /**
   * Stops heart-beating and removes the row, unless budget is still leased to it (the
   * shutdown could not return it): then the row stays, goes stale and the leases are
   * reclaimed, instead of the cascade dropping lease rows whose amounts stay counted.
   */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#db
      .query(
        `DELETE FROM lease_holders WHERE id = $1
         AND NOT EXISTS (SELECT 1 FROM budget_leases WHERE holder_id = $1 AND amount_micros > 0)`,
        [this.id],
      )
      .catch(() => undefined);
  }
}
