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
 * Slots handed out in turn: an acquire waits for a free one, and a wait past `waitMs` is
 * refused as a 'busy' outage (a 503 with Retry-After) instead of queueing without end.
 */
class TimedSlots {
  readonly #slots: number;
  readonly #waitMs: number;
  inUse = 0;
  busyRefusals = 0;
  readonly waiters: Array<() => void> = [];

  constructor(slots: number, waitMs: number) {
    this.#slots = slots;
    this.#waitMs = waitMs;
  }

  acquire(what: string): Promise<void> {
    if (this.inUse < this.#slots) {
      this.inUse += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const granted = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(granted), 1);
        this.busyRefusals += 1;
        reject(new DatabaseUnavailableError('busy', new Error(`${what} stayed in use for ${this.#waitMs} ms`)));
      }, this.#waitMs);
      this.waiters.push(granted);
    });
  }

  release(): void {
    const next = this.waiters.shift();
    // The slot passes straight to the next waiter: inUse stays the same.
    if (next) next();
    else this.inUse -= 1;
  }
}

/**
 * Reads through `db` in at most `slots` sessions at once. On the embedded engine (one
 * session, statements run in turn) a single slot means at most one console statement is
 * ever queued in the engine: a gateway statement waits behind one short read at most,
 * never behind a page's worth or three browsers' worth.
 */
export class SlotLimitedReads implements ReportingReads {
  readonly #db: Queryable;
  readonly #slots: TimedSlots;
  readonly #max: number;

  constructor(db: Queryable, slots: number, waitMs: number) {
    this.#db = db;
    this.#max = slots;
    this.#slots = new TimedSlots(slots, waitMs);
  }

  async session<T>(work: (reads: Queryable) => Promise<T>): Promise<T> {
    await this.#slots.acquire('every reporting read slot');
    try {
      return await work(this.#db);
    } finally {
      this.#slots.release();
    }
  }

  stats(): ReportingReadStats {
    return { max: this.#max, inUse: this.#slots.inUse, waiting: this.#slots.waiters.length, busyRefusals: this.#slots.busyRefusals };
  }
}

/** Reporting read sessions one account may hold at once. */
export const ACCOUNT_READ_SESSIONS = 1;

/** The accounts' turns on one store's reporting reads, and how often an account's wait was refused. */
class AccountTurns {
  readonly turns = new Map<string, TimedSlots>();
  busyRefusals = 0;
}

const accountTurns = new WeakMap<Database, AccountTurns>();

/**
 * The reporting reads of one account: its sessions run one after another, each after the
 * account's earlier ones, then on the store's reading connections. However many browsers
 * or scripts of one account read at once, they hold one reading connection and one
 * database process, so an account's dashboards can neither fill the reads every other
 * account shares nor take the cores the gateway's own statements run on. A session that
 * waits past READ_WAIT_MS for its turn is refused as busy, like one that waits for a
 * connection.
 */
export function accountReadsOf(db: Database, accountId: string): ReportingReads {
  let all = accountTurns.get(db);
  if (all === undefined) {
    all = new AccountTurns();
    accountTurns.set(db, all);
  }
  const turns = all;
  const shared = reportingReadsOf(db);
  return {
    async session<T>(work: (reads: Queryable) => Promise<T>): Promise<T> {
      let turn = turns.turns.get(accountId);
      if (turn === undefined) {
        turn = new TimedSlots(ACCOUNT_READ_SESSIONS, READ_WAIT_MS);
        turns.turns.set(accountId, turn);
      }
      const done = () => {
        // An account with nothing running or waiting keeps no entry.
        if (turn.inUse === 0 && turn.waiters.length === 0) turns.turns.delete(accountId);
      };
      try {
        await turn.acquire("the account's earlier reporting reads");
      } catch (error) {
        turns.busyRefusals += 1;
        done();
        throw error;
      }
      try {
        return await shared.session(work);
      } finally {
        turn.release();
        done();
      }
    },
    stats: () => shared.stats(),
  };
}

/** Sessions waiting for their account's turn now, and how many such waits were refused. */
export function accountTurnStats(db: Database): { waiting: number; busyRefusals: number } {
  const all = accountTurns.get(db);
  let waiting = 0;
  for (const turn of all?.turns.values() ?? []) waiting += turn.waiters.length;
  return { waiting, busyRefusals: all?.busyRefusals ?? 0 };
}
