import { DatabaseUnavailableError } from './connection-errors.ts';
import type { Database, Queryable } from './database.ts';

/** What the console's and reporting reads are using, and how often one found them all busy. */
export type ReportingReadStats = { max: number; inUse: number; waiting: number; busyRefusals: number };

/**
 * The console's and reporting reads (Overview, Usage, exports, `GET /v1/usage`), kept apart
 * from the gateway's own work (auth, leases, settlement): they can fill only their own
 * connections, and when those stay full a read fails as a 'busy' outage (a 503 with
 * Retry-After) instead of making a gateway call wait.
 */
export interface ReportingReads {
  /** Runs `work` on one reading connection: a page's queries share one, however many it sends. */
  session<T>(work: (reads: Queryable) => Promise<T>): Promise<T>;
  stats(): ReportingReadStats;
}

/** How long a read waits for a free reading slot before it is refused as busy. */
export const READ_WAIT_MS = 2_000;

const serialReads = new WeakMap<Database, ReportingReads>();

/** The store's reporting reads: its own pool where it has one (PostgreSQL), else one read at a time on the shared engine. */
export function reportingReadsOf(db: Database): ReportingReads {
  if (db.reportingReads) return db.reportingReads;
  let reads = serialReads.get(db);
  if (reads === undefined) {
    reads = new SlotLimitedReads(db, 1, READ_WAIT_MS);
    serialReads.set(db, reads);
  }
  return reads;
}

/**
 * Reads through `db` in at most `slots` sessions at once. On the embedded engine (one
 * session, statements run in turn) a single slot means at most one console statement is
 * ever queued in the engine: a gateway statement waits behind one short read at most,
 * never behind a page's worth or three browsers' worth.
 */
export class SlotLimitedReads implements ReportingReads {
  readonly #db: Queryable;
  readonly #slots: number;
  readonly #waitMs: number;
  #inUse = 0;
  #busyRefusals = 0;
  readonly #waiters: Array<() => void> = [];

  constructor(db: Queryable, slots: number, waitMs: number) {
    this.#db = db;
    this.#slots = slots;
    this.#waitMs = waitMs;
  }

  async session<T>(work: (reads: Queryable) => Promise<T>): Promise<T> {
    await this.#acquire();
    try {
      return await work(this.#db);
    } finally {
      this.#release();
    }
  }

  stats(): ReportingReadStats {
    return { max: this.#slots, inUse: this.#inUse, waiting: this.#waiters.length, busyRefusals: this.#busyRefusals };
  }

  #acquire(): Promise<void> {
    if (this.#inUse < this.#slots) {
      this.#inUse += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const granted = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(granted), 1);
        this.#busyRefusals += 1;
        reject(new DatabaseUnavailableError('busy', new Error(`every reporting read slot stayed in use for ${this.#waitMs} ms`)));
      }, this.#waitMs);
      this.#waiters.push(granted);
    });
  }

  #release(): void {
    const next = this.#waiters.shift();
    // The slot passes straight to the next waiter: inUse stays the same.
    if (next) next();
    else this.#inUse -= 1;
  }
}
