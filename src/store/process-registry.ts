import { randomUUID } from 'node:crypto';
import type { Database } from './database.ts';

/** How often a live process says so; a process silent for STALE_AFTER_SECONDS is presumed dead. */
const HEARTBEAT_MS = 5_000;
export const STALE_AFTER_SECONDS = 30;

/**
 * Each gateway process registers itself in `lease_holders`: budget leases it holds
 * hang off its row, and key changes wait for the acknowledgement of every live one.
 */
export class ProcessRegistration {
  readonly id = randomUUID();
  readonly #db: Database;
  #timer: NodeJS.Timeout | undefined;

  constructor(db: Database) {
    this.#db = db;
  }

  async start(): Promise<void> {
    await this.#db.query('INSERT INTO lease_holders (id) VALUES ($1)', [this.id]);
    this.#timer = setInterval(() => {
      this.#db.query('UPDATE lease_holders SET heartbeat_at = now() WHERE id = $1', [this.id]).catch(() => undefined);
    }, HEARTBEAT_MS);
    this.#timer.unref();
  }

  /** Ids of the other processes that have shown life recently. */
  async otherLiveProcesses(): Promise<string[]> {
    const result = await this.#db.query<{ id: string }>(
      `SELECT id FROM lease_holders WHERE id <> $1 AND heartbeat_at > now() - make_interval(secs => $2)`,
      [this.id, STALE_AFTER_SECONDS],
    );
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
