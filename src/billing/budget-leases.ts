import { JunctionError } from '../core/errors.ts';
import { microsToUsd } from '../core/money.ts';
import { nextUtcDay, nextUtcMonth, utcDayNumber, utcMonthNumber } from '../core/utc-windows.ts';
import type { ApiKeyRecord } from '../keys/key-record.ts';
import { type Database, LOST_NOTIFICATIONS } from '../store/database.ts';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../store/database-outage-answer.ts';
import type { LeaseHolder } from '../store/process-registry.ts';
import { leaseFromAccount, leaseFromKey, readKeyHeadroom } from './lease-sql.ts';
import type { OpenCall } from './open-call.ts';
import type { Settlement } from './settlement.ts';
import type { SettlementQueue } from './settlement-queue.ts';
import type { UsageRecord } from './usage-record.ts';

/** A process-local slice of one key's or account's budget. */
class Lease {
  /** Leased from the database and neither settled nor given back yet. */
  granted = 0;
  /** Held by calls in flight. */
  reserved = 0;
  lastUsed = Date.now();
  topUp: Promise<JunctionError | undefined> | undefined;
  /** A key lease's key (its lookup id, as key changes are announced). */
  lookupId: string | undefined;
  /** Bumped when the key's settings change: budget leased before that may exceed new limits. */
  generation = 0;

  get available(): number {
    return this.granted - this.reserved;
  }
}

export type Reservation = {
  readonly keyId: string | null;
  readonly accountId: string;
  readonly amountMicros: number;
  /** Whether the key's budget is leased (keys without limits are not). */
  readonly keyLeased: boolean;
  /** The key lease's generation when this was reserved. */
  readonly keyGeneration: number;
  /** The holder's epoch when this was reserved; leases of an older epoch were reclaimed. */
  readonly epoch: number;
  settled: boolean;
};

/** Lease at least this much when a budget allows, so most calls need no database trip. */
const PREFERRED_LEASE_MICROS = 1_000_000;
const LEASE_MULTIPLE = 16;
const IDLE_RETURN_MS = 2_000;

/**
 * Budget leases (docs/keys-limits-billing.md, "Exact and fast"): a process takes a slice of a
 * key's and an account's remaining budget with one atomic UPDATE, serves many
 * reservations from it in memory, tops up before it runs dry and gives back what
 * stays idle. Limits stay exact across processes because no two processes hold the
 * same money, and a reservation always comes out of a lease.
 */
export class BudgetLeases {
  readonly #db: Database;
  readonly #holder: LeaseHolder;
  readonly #settlements: SettlementQueue;
  readonly #now: () => Date;
  readonly #keyLeases = new Map<string, Lease>();
  readonly #accountLeases = new Map<string, Lease>();
  readonly #idleTimer: NodeJS.Timeout;

  constructor(db: Database, holder: LeaseHolder, settlements: SettlementQueue, now: () => Date) {
    this.#db = db;
    this.#holder = holder;
    // Another process took this one's leases back (it looked dead): what memory holds is
    // void, and queued settlements must no longer subtract from leases that are gone.
    holder.onReclaimed(() => {
      this.#keyLeases.clear();
      this.#accountLeases.clear();
      this.#settlements.forgetLeaseParts();
    });
    this.#settlements = settlements;
    this.#now = now;
    this.#idleTimer = setInterval(() => this.returnIdle(IDLE_RETURN_MS), 1_000);
    this.#idleTimer.unref();
  }

  /**
   * Reserves `amountMicros` against the key's windows and the account's credit, or
   * throws `key_limit_exceeded` / `insufficient_credits` without holding anything.
   */
  async reserve(key: ApiKeyRecord, amountMicros: number): Promise<Reservation> {
    const leased = this.reserveFromLeases(key, amountMicros);
    if (leased) return leased;
    if (!this.#holder.canServeLeases()) {
      throw new JunctionError('service_unavailable', 'The gateway cannot confirm its leases with the database right now; retry shortly.', {
        headers: { 'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS) },
      });
    }
    const epoch = this.#holder.epoch;
    const keyLeased = hasLimits(key);
    const keyLease = keyLeased ? this.#lease(this.#keyLeases, key.id) : undefined;
    let keyGeneration = 0;
    if (keyLease) {
      keyLease.lookupId = key.lookupId;
      await this.#take(keyLease, amountMicros, (need, want) => this.#topUpKey(key, need, want));
      keyGeneration = keyLease.generation;
    }
    try {
      await this.#take(this.#lease(this.#accountLeases, key.accountId), amountMicros, (need, want) => this.#topUpAccount(key.accountId, need, want));
    } catch (error) {
      if (keyLeased && epoch === this.#holder.epoch) this.#lease(this.#keyLeases, key.id).reserved -= amountMicros;
      throw error;
    }
    return { keyId: key.id, accountId: key.accountId, amountMicros, keyLeased, keyGeneration, epoch, settled: false };
  }

  /**
   * `reserve` without waiting, when what this process already leases covers the amount
   * (most calls: leases are topped up in large steps); undefined when it does not, or
   * when the leases cannot be trusted right now: then call `reserve`, which tops up or
   * refuses. Never refuses by itself.
   */
  reserveFromLeases(key: ApiKeyRecord, amountMicros: number): Reservation | undefined {
    if (!this.#holder.canServeLeases()) return undefined;
    const keyLeased = hasLimits(key);
    const keyLease = keyLeased ? this.#keyLeases.get(key.id) : undefined;
    const accountLease = this.#accountLeases.get(key.accountId);
    if (accountLease === undefined || accountLease.available < amountMicros) return undefined;
    if (keyLeased && (keyLease === undefined || keyLease.available < amountMicros || keyLease.lookupId !== key.lookupId)) return undefined;
    const now = Date.now();
    if (keyLease) {
      keyLease.reserved += amountMicros;
      keyLease.lastUsed = now;
    }
    accountLease.reserved += amountMicros;
    accountLease.lastUsed = now;
    return { keyId: key.id, accountId: key.accountId, amountMicros, keyLeased, keyGeneration: keyLease?.generation ?? 0, epoch: this.#holder.epoch, settled: false };
  }

  /**
   * What the key and account could still cover right now (leased here plus what the
   * database would grant), for capping an uncapped output to the budget.
   */
  async headroom(key: ApiKeyRecord): Promise<number> {
    const account = await this.#db.query<{ headroom: number }>('SELECT granted_micros - usage_micros - leased_micros AS headroom FROM accounts WHERE id = $1', [key.accountId]);
    let headroom = (account.rows[0]?.headroom ?? 0) + Math.max(0, this.#accountLeases.get(key.accountId)?.available ?? 0);
    if (hasLimits(key)) {
      const keyHeadroom = await readKeyHeadroom(this.#db, { keyId: key.id, ...windows(this.#now()) });
      headroom = Math.min(headroom, keyHeadroom + Math.max(0, this.#keyLeases.get(key.id)?.available ?? 0));
    }
    return Math.max(0, headroom);
  }

  /**
   * Settles a call: `costMicros` is spent, the rest of the reservation returns to the
   * lease, and the usage row is queued for the next group commit. Synchronous: the
   * caller never waits for the database.
   */
  settle(reservation: Reservation | undefined, costMicros: number, usage: UsageRecord | undefined, key: { id: string; accountId: string }): void {
    if (reservation?.settled) return;
    let keyLease = 0;
    let accountLease = 0;
    if (reservation && reservation.epoch !== this.#holder.epoch) {
      // Reserved from a lease that was reclaimed meanwhile: the money is spent, but there
      // is no lease left to take it from.
      reservation.settled = true;
    } else if (reservation) {
      reservation.settled = true;
      // A cost above the reservation (an under-estimate) is spent, but only the
      // reserved part comes out of the lease: the lease never goes negative. The
      // spent part leaves the local lease now; the database follows at the next
      // group commit (until then other processes see it as still leased: safe).
      const fromLease = Math.min(costMicros, reservation.amountMicros);
      const account = this.#lease(this.#accountLeases, reservation.accountId);
      account.reserved -= reservation.amountMicros;
      account.granted -= fromLease;
      accountLease = fromLease;
      if (reservation.keyLeased && reservation.keyId) {
        const lease = this.#lease(this.#keyLeases, reservation.keyId);
        lease.reserved -= reservation.amountMicros;
        lease.granted -= fromLease;
        keyLease = fromLease;
        // Reserved under settings since changed: what the call did not use goes back
        // rather than serving later calls past a lowered limit.
        if (lease.generation !== reservation.keyGeneration) keyLease += this.#giveBackSpare(lease);
      }
    }
    this.#settlements.add({ usage, keyId: key.id || null, accountId: key.accountId, spendMicros: costMicros, keyLeaseMicros: keyLease, accountLeaseMicros: accountLease });
  }

  /** Journals a call under way (its start or progress) for crash recovery; see SettlementQueue.journal. */
  journal(call: OpenCall): void {
    this.#settlements.journal(call);
  }

  /** Waits (up to `timeoutMs`) for calls under way to settle; see SettlementQueue.openCallsSettled. */
  openCallsSettled(timeoutMs: number): Promise<void> {
    return this.#settlements.openCallsSettled(timeoutMs);
  }

  /**
   * A key's settings changed (KeyChangeSync; `*` = any key may have): the budget its
   * leases hold beyond calls in flight goes back, so the next reservation is granted
   * by the database against the new limits. Calls in flight give back their rest when
   * they settle; a top-up under way when the change lands is handed back on arrival.
   */
  keyChanged(lookupId: string): void {
    for (const [keyId, lease] of this.#keyLeases) {
      if (lookupId !== LOST_NOTIFICATIONS && lease.lookupId !== lookupId) continue;
      lease.generation += 1;
      const spare = this.#giveBackSpare(lease);
      if (spare > 0) this.#settlements.add({ keyId, accountId: null, spendMicros: 0, keyLeaseMicros: spare, accountLeaseMicros: 0 });
    }
  }

  /** Takes a lease's unreserved budget off it; the caller writes it back to the database. */
  #giveBackSpare(lease: Lease): number {
    const spare = Math.max(0, lease.available);
    lease.granted -= spare;
    return spare;
  }

  /** Gives back leases nobody used for `idleMs` (and all of them with idleMs = 0, at shutdown). */
  returnIdle(idleMs: number): void {
    const cutoff = Date.now() - idleMs;
    for (const [leases, isKey] of [
      [this.#keyLeases, true],
      [this.#accountLeases, false],
    ] as const) {
      for (const [id, lease] of leases) {
        if (lease.reserved > 0 || lease.topUp || lease.lastUsed > cutoff || lease.granted <= 0) continue;
        const amount = lease.granted;
        lease.granted = 0;
        leases.delete(id);
        this.#settlements.add({
          keyId: isKey ? id : null,
          accountId: isKey ? null : id,
          spendMicros: 0,
          keyLeaseMicros: isKey ? amount : 0,
          accountLeaseMicros: isKey ? 0 : amount,
        });
      }
    }
  }

  /** Returns idle leases and writes what is queued; returns the settlements that could not be written. */
  async close(): Promise<Settlement[]> {
    clearInterval(this.#idleTimer);
    this.returnIdle(0);
    return this.#settlements.close();
  }

  #lease(map: Map<string, Lease>, id: string): Lease {
    let lease = map.get(id);
    if (!lease) {
      lease = new Lease();
      map.set(id, lease);
    }
    return lease;
  }

  async #take(lease: Lease, amount: number, topUp: (need: number, want: number) => Promise<JunctionError | undefined>): Promise<void> {
    lease.lastUsed = Date.now();
    // Calls that find a top-up under way wait for it and look again; a call that finds
    // the lease short with none under way tops up itself. Its refusal refuses the call:
    // the database found less headroom than this call needs.
    for (;;) {
      if (lease.available >= amount) {
        lease.reserved += amount;
        return;
      }
      if (lease.topUp) {
        await lease.topUp;
        continue;
      }
      const need = amount - Math.max(0, lease.available);
      lease.topUp = topUp(need, Math.max(need, amount * LEASE_MULTIPLE, PREFERRED_LEASE_MICROS));
      let refusal: JunctionError | undefined;
      try {
        refusal = await lease.topUp;
      } finally {
        lease.topUp = undefined;
      }
      if (refusal && lease.available < amount) throw refusal;
    }
  }

  async #topUpKey(key: ApiKeyRecord, need: number, want: number): Promise<JunctionError | undefined> {
    const now = this.#now();
    const lease = this.#lease(this.#keyLeases, key.id);
    const generation = lease.generation;
    const grant = await leaseFromKey(this.#db, { keyId: key.id, holderId: this.#holder.id, needMicros: need, wantMicros: want, ...windows(now) });
    if (grant.grantedMicros > 0) {
      if (lease.generation !== generation) {
        // Granted under the settings before a change: hand it back; the caller tops up again.
        this.#settlements.add({ keyId: key.id, accountId: null, spendMicros: 0, keyLeaseMicros: grant.grantedMicros, accountLeaseMicros: 0 });
        return undefined;
      }
      lease.granted += grant.grantedMicros;
      return undefined;
    }
    return this.#keyRefusal(key, now);
  }

  async #topUpAccount(accountId: string, need: number, want: number): Promise<JunctionError | undefined> {
    const grant = await leaseFromAccount(this.#db, { accountId, holderId: this.#holder.id, needMicros: need, wantMicros: want });
    if (grant.grantedMicros > 0) {
      this.#lease(this.#accountLeases, accountId).granted += grant.grantedMicros;
      return undefined;
    }
    return new JunctionError(
      'insufficient_credits',
      `The account's credit (${formatUsd(Math.max(0, grant.headroomMicros))} available) cannot cover this request. Add credits (npx junction credits grant) or lower max_tokens.`,
    );
  }

  /** Names the window that ran out and when it resets. */
  async #keyRefusal(key: ApiKeyRecord, now: Date): Promise<JunctionError> {
    const result = await this.#db.query<{ day: number; month: number; total: number }>(
      `SELECT (CASE WHEN spend_day = $2 THEN spend_day_micros ELSE 0 END) + leased_micros AS day,
              (CASE WHEN spend_month = $3 THEN spend_month_micros ELSE 0 END) + leased_micros AS month,
              spend_total_micros + leased_micros AS total
       FROM api_keys WHERE id = $1`,
      [key.id, utcDayNumber(now), utcMonthNumber(now)],
    );
    const used = result.rows[0] ?? { day: 0, month: 0, total: 0 };
    const candidates = [
      { window: 'daily', limit: key.dailyLimitMicros, used: used.day, resets: nextUtcDay(now).toISOString() },
      { window: 'monthly', limit: key.monthlyLimitMicros, used: used.month, resets: nextUtcMonth(now).toISOString() },
      { window: 'total', limit: key.totalLimitMicros, used: used.total, resets: null },
    ].filter((entry) => entry.limit !== null);
    const tightest = candidates.reduce((a, b) => ((a.limit ?? 0) - a.used <= (b.limit ?? 0) - b.used ? a : b));
    const resets = tightest.resets ? ` It resets at ${tightest.resets}.` : ' It does not reset; raise the limit to continue.';
    return new JunctionError('key_limit_exceeded', `This key's ${tightest.window} spend limit of ${formatUsd(tightest.limit ?? 0)} cannot cover this request.${resets}`);
  }
}

const hasLimits = (key: ApiKeyRecord): boolean => key.dailyLimitMicros !== null || key.monthlyLimitMicros !== null || key.totalLimitMicros !== null;

const windows = (now: Date) => ({ day: utcDayNumber(now), month: utcMonthNumber(now) });

const formatUsd = (micros: number): string =>
  `$${microsToUsd(micros)
    .toFixed(6)
    .replace(/0{1,4}$/, '')}`;
