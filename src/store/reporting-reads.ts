import { JunctionError } from '../core/errors.ts';
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
/** Reads (pages, exports, reports) one account may start a second, after a burst of ACCOUNT_READ_BURST: a person never comes near it. */
export const ACCOUNT_READS_PER_SECOND = 10;
export const ACCOUNT_READ_BURST = 20;

/** Budgets kept before the full ones are forgotten. */
const BUDGETS_KEPT = 10_000;

/** An account's read budget: its tokens at `at`. */
type ReadBudget = { tokens: number; at: number };

/** The accounts' read budgets in one process: tokens refill at ACCOUNT_READS_PER_SECOND up to the burst; a read takes one, waiting when there is none. */
export class AccountReadBudgets {
  readonly #budgets = new Map<string, ReadBudget>();
  refusals = 0;

  /**
   * How long the account's next read waits for its share (0: at once), taking it. A wait past
   * READ_WAIT_MS is refused instead (429 with Retry-After): the account is reading in a loop.
   */
  take(accountId: string, now: number): number {
    const budget = this.#budgets.get(accountId) ?? { tokens: ACCOUNT_READ_BURST, at: now };
    const tokens = Math.min(ACCOUNT_READ_BURST, budget.tokens + ((now - budget.at) / 1_000) * ACCOUNT_READS_PER_SECOND);
    const waitMs = tokens >= 1 ? 0 : ((1 - tokens) / ACCOUNT_READS_PER_SECOND) * 1_000;
    if (waitMs > READ_WAIT_MS) {
      this.refusals += 1;
      this.#budgets.set(accountId, { tokens, at: now });
      throw new JunctionError('reads_rate_limited', `This account's console and reporting reads are past ${ACCOUNT_READS_PER_SECOND} a second; retry shortly.`, {
        headers: { 'retry-after': String(Math.ceil(waitMs / 1_000)) },
      });
    }
    // Taken now, even when it is waited for: the reads after it queue behind.
    this.#budgets.set(accountId, { tokens: tokens - 1, at: now });
    if (this.#budgets.size > BUDGETS_KEPT) this.#forgetFull(now);
    return waitMs;
  }

  /** A full budget is what an account without an entry has: those entries go. */
  #forgetFull(now: number): void {
    for (const [id, budget] of this.#budgets) {
      if (budget.tokens + ((now - budget.at) / 1_000) * ACCOUNT_READS_PER_SECOND >= ACCOUNT_READ_BURST) this.#budgets.delete(id);
    }
  }
}

/** The accounts' turns and budgets on one store's reporting reads, and how often an account's wait was refused. */
class AccountTurns {
  readonly turns = new Map<string, TimedSlots>();
  readonly budgets = new AccountReadBudgets();
  busyRefusals = 0;
}

const accountTurns = new WeakMap<Database, AccountTurns>();

/**
 * Reads for one request of one account. The request's opening read takes a share of the
 * account's read budget (waiting for it, or 429 past READ_WAIT_MS), so an export's later
 * pages are free; each read runs after the account's earlier ones (503 busy past
 * READ_WAIT_MS). So one account's dashboards, however many, hold one reading connection and
 * a bounded share of time, leaving the rest to other accounts and to the gateway's own
 * statements.
 */
export function accountReadsOf(db: Database, accountId: string): ReportingReads {
  let all = accountTurns.get(db);
  if (all === undefined) {
    all = new AccountTurns();
    accountTurns.set(db, all);
  }
  const turns = all;
  const shared = reportingReadsOf(db);
  let paced = false;
  return {
    async session<T>(work: (reads: Queryable) => Promise<T>): Promise<T> {
      if (!paced) {
        paced = true;
        const waitMs = turns.budgets.take(accountId, Date.now());
        if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
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

/** Sessions waiting for their account's turn now, how many such waits were refused, and how many reads were refused as too fast. */
export function accountTurnStats(db: Database): { waiting: number; busyRefusals: number; rateRefusals: number } {
  const all = accountTurns.get(db);
  let waiting = 0;
  for (const turn of all?.turns.values() ?? []) waiting += turn.waiters.length;
  return { waiting, busyRefusals: all?.busyRefusals ?? 0, rateRefusals: all?.budgets.refusals ?? 0 };
}
