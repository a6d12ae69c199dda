import { utcDayNumber, utcMonthNumber } from '../core/utc-windows.ts';
import type { Database, Queryable } from '../store/database.ts';
import { USAGE_COLUMNS, type UsageRecord, usageValues } from './usage-record.ts';

/** What one settled call (or one returned lease) changes in the database. */
export type Settlement = {
  usage?: UsageRecord;
  keyId: string | null;
  /** Null for a returned key lease, which touches no account. */
  accountId: string | null;
  /** Actual cost: added to the key's windows and the account's usage. */
  spendMicros: number;
  /** Leased budget this settlement consumes or gives back: subtracted from `leased_micros`. */
  keyLeaseMicros: number;
  accountLeaseMicros: number;
};

const FLUSH_INTERVAL_MS = 5;
const MAX_BATCH = 500;

/**
 * Group commit: settlements queue in memory and are written every few milliseconds in
 * one transaction (usage rows, key spend windows, account usage, lease balances), so
 * a busy gateway makes a handful of writes per batch instead of several per request.
 * A failed flush keeps its settlements and retries; `close()` flushes what is left.
 */
export class SettlementQueue {
  readonly #db: Database;
  readonly #holderId: string | undefined;
  readonly #onError: (error: unknown) => void;
  #pending: Settlement[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #closed = false;

  constructor(db: Database, holderId: string | undefined, onError: (error: unknown) => void) {
    this.#db = db;
    this.#holderId = holderId;
    this.#onError = onError;
  }

  add(settlement: Settlement): void {
    if (this.#closed) {
      this.#onError(new Error('a settlement arrived after shutdown and was not written'));
      return;
    }
    this.#pending.push(settlement);
    if (this.#pending.length >= MAX_BATCH) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
  }

  /** Resolves once everything queued before the call is written (tests, /generations reads, shutdown). */
  async drain(maxAttempts = 20): Promise<void> {
    for (let attempt = 0; attempt < maxAttempts && (this.#pending.length > 0 || this.#flushing); attempt += 1) {
      await (this.#flushing ?? this.flush());
    }
  }

  /** Writes what is queued; later settlements are refused (the store is about to close). */
  async close(): Promise<void> {
    await this.drain();
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  async flush(): Promise<void> {
    if (this.#flushing) return this.#flushing;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    this.#flushing = this.#db
      .transaction((tx) => writeBatch(tx, batch, this.#holderId, new Date()))
      .catch((error: unknown) => {
        this.#pending.unshift(...batch);
        this.#onError(error);
        return new Promise<void>((done) => setTimeout(done, 250));
      })
      .finally(() => {
        this.#flushing = undefined;
        if (this.#pending.length > 0) this.#timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
      });
    return this.#flushing;
  }

  get pendingCount(): number {
    return this.#pending.length;
  }
}

type Totals = { spend: number; lease: number; lastUsed: Date | undefined };

function addTo(map: Map<string, Totals>, id: string, spend: number, lease: number, lastUsed: Date | undefined): void {
  const totals = map.get(id) ?? { spend: 0, lease: 0, lastUsed: undefined };
  totals.spend += spend;
  totals.lease += lease;
  if (lastUsed && (!totals.lastUsed || lastUsed > totals.lastUsed)) totals.lastUsed = lastUsed;
  map.set(id, totals);
}

async function writeBatch(tx: Queryable, batch: Settlement[], holderId: string | undefined, now: Date): Promise<void> {
  const rows = batch.flatMap((settlement) => (settlement.usage ? [settlement.usage] : []));
  if (rows.length > 0) {
    const width = USAGE_COLUMNS.length;
    const tuples = rows.map((_, row) => `(${USAGE_COLUMNS.map((__, column) => `$${row * width + column + 1}`).join(', ')})`);
    await tx.query(`INSERT INTO usage_log (${USAGE_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`, rows.flatMap(usageValues));
  }
  const keys = new Map<string, Totals>();
  const accounts = new Map<string, Totals>();
  for (const settlement of batch) {
    if (settlement.keyId) addTo(keys, settlement.keyId, settlement.spendMicros, settlement.keyLeaseMicros, settlement.usage?.createdAt);
    if (settlement.accountId) addTo(accounts, settlement.accountId, settlement.spendMicros, settlement.accountLeaseMicros, undefined);
  }
  const day = utcDayNumber(now);
  const month = utcMonthNumber(now);
  for (const [keyId, totals] of keys) {
    await tx.query(
      `UPDATE api_keys SET
         spend_day_micros = (CASE WHEN spend_day = $3 THEN spend_day_micros ELSE 0 END) + $2,
         spend_day = $3,
         spend_month_micros = (CASE WHEN spend_month = $4 THEN spend_month_micros ELSE 0 END) + $2,
         spend_month = $4,
         spend_total_micros = spend_total_micros + $2,
         leased_micros = leased_micros - $5,
         last_used_at = GREATEST(last_used_at, $6::timestamptz)
       WHERE id = $1`,
      [keyId, totals.spend, day, month, totals.lease, totals.lastUsed ?? null],
    );
    if (holderId && totals.lease !== 0) {
      await tx.query('UPDATE budget_leases SET amount_micros = amount_micros - $3 WHERE holder_id = $1 AND key_id = $2', [
        holderId,
        keyId,
        totals.lease,
      ]);
    }
  }
  for (const [accountId, totals] of accounts) {
    await tx.query('UPDATE accounts SET usage_micros = usage_micros + $2, leased_micros = leased_micros - $3 WHERE id = $1', [
      accountId,
      totals.spend,
      totals.lease,
    ]);
    if (holderId && totals.lease !== 0) {
      await tx.query('UPDATE budget_leases SET amount_micros = amount_micros - $3 WHERE holder_id = $1 AND account_id = $2', [
        holderId,
        accountId,
        totals.lease,
      ]);
    }
  }
}
