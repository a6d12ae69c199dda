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

/** Group-commit window: long enough to gather a busy second's calls into ~100 writes, short enough that /generations reads soon see them. */
const FLUSH_INTERVAL_MS = 10;
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
  /** Bumped by forgetLeaseParts, so a batch in flight at that moment is corrected if it fails. */
  #leaseEpoch = 0;

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

  /**
   * The leases these settlements would subtract from were reclaimed by another process:
   * keep the spend and usage rows, drop the lease parts (the reclaim already returned them).
   */
  forgetLeaseParts(): void {
    this.#leaseEpoch += 1;
    for (const settlement of this.#pending) {
      settlement.keyLeaseMicros = 0;
      settlement.accountLeaseMicros = 0;
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
    const epoch = this.#leaseEpoch;
    // One statement is atomic on its own: no BEGIN/COMMIT round trips around it.
    this.#flushing = writeBatch(this.#db, batch, this.#holderId, new Date())
      .catch((error: unknown) => {
        if (epoch !== this.#leaseEpoch) {
          for (const settlement of batch) {
            settlement.keyLeaseMicros = 0;
            settlement.accountLeaseMicros = 0;
          }
        }
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

type Totals = { spend: number; lease: number; lastUsed: string | null };

function addTo(map: Map<string, Totals>, id: string, spend: number, lease: number, lastUsed: Date | undefined): void {
  const totals = map.get(id) ?? { spend: 0, lease: 0, lastUsed: null };
  totals.spend += spend;
  totals.lease += lease;
  const at = lastUsed?.toISOString() ?? null;
  if (at && (!totals.lastUsed || at > totals.lastUsed)) totals.lastUsed = at;
  map.set(id, totals);
}

const USAGE_RECORD_TYPES = `id text, account_id uuid, key_id uuid, request_id text, endpoint text, requested_model text,
  model text, provider text, upstream_model text, status text, http_status integer, error_code text, input_tokens integer,
  output_tokens integer, cached_input_tokens integer, reasoning_tokens integer, units jsonb, cost_micros bigint,
  latency_ms integer, attempts integer, streamed boolean, agent_id text, agent_run_id text, created_at timestamptz`;

/**
 * The whole batch in ONE statement (one round trip; on PGlite, one pass through the
 * WASM engine): usage rows, then per key its spend windows and lease, per account its
 * usage and lease, and this process's lease rows. Rows travel as JSON arrays
 * (`jsonb_to_recordset`), so the statement text is the same for every batch size.
 */
async function writeBatch(tx: Queryable, batch: Settlement[], holderId: string | undefined, now: Date): Promise<void> {
  const rows = batch.flatMap((settlement) => (settlement.usage ? [Object.fromEntries(USAGE_COLUMNS.map((column, index) => [column, usageValues(settlement.usage as UsageRecord)[index]]))] : []));
  const keys = new Map<string, Totals>();
  const accounts = new Map<string, Totals>();
  for (const settlement of batch) {
    if (settlement.keyId) addTo(keys, settlement.keyId, settlement.spendMicros, settlement.keyLeaseMicros, settlement.usage?.createdAt);
    if (settlement.accountId) addTo(accounts, settlement.accountId, settlement.spendMicros, settlement.accountLeaseMicros, undefined);
  }
  const keyRows = [...keys].map(([id, totals]) => ({ id, spend: totals.spend, lease: totals.lease, last_used: totals.lastUsed }));
  const accountRows = [...accounts].map(([id, totals]) => ({ id, spend: totals.spend, lease: totals.lease }));
  const leaseRows = [
    ...keyRows.filter((row) => row.lease !== 0).map((row) => ({ key_id: row.id, account_id: null, lease: row.lease })),
    ...accountRows.filter((row) => row.lease !== 0).map((row) => ({ key_id: null, account_id: row.id, lease: row.lease })),
  ];
  await tx.query(
    `WITH usage_rows AS (
       INSERT INTO usage_log (${USAGE_COLUMNS.join(', ')})
       SELECT ${USAGE_COLUMNS.join(', ')} FROM jsonb_to_recordset($1::jsonb) AS r(${USAGE_RECORD_TYPES})
     ), key_totals AS (
       UPDATE api_keys k SET
         spend_day_micros = (CASE WHEN k.spend_day = $5 THEN k.spend_day_micros ELSE 0 END) + d.spend,
         spend_day = $5,
         spend_month_micros = (CASE WHEN k.spend_month = $6 THEN k.spend_month_micros ELSE 0 END) + d.spend,
         spend_month = $6,
         spend_total_micros = k.spend_total_micros + d.spend,
         leased_micros = k.leased_micros - d.lease,
         last_used_at = GREATEST(k.last_used_at, d.last_used)
       FROM jsonb_to_recordset($2::jsonb) AS d(id uuid, spend bigint, lease bigint, last_used timestamptz)
       WHERE k.id = d.id
     ), account_totals AS (
       UPDATE accounts a SET usage_micros = a.usage_micros + d.spend, leased_micros = a.leased_micros - d.lease
       FROM jsonb_to_recordset($3::jsonb) AS d(id uuid, spend bigint, lease bigint)
       WHERE a.id = d.id
     ), lease_rows AS (
       UPDATE budget_leases l SET amount_micros = l.amount_micros - d.lease
       FROM jsonb_to_recordset($4::jsonb) AS d(key_id uuid, account_id uuid, lease bigint)
       WHERE l.holder_id = $7 AND (l.key_id = d.key_id OR l.account_id = d.account_id)
     )
     SELECT 1`,
    [JSON.stringify(rows), JSON.stringify(keyRows), JSON.stringify(accountRows), JSON.stringify(leaseRows), utcDayNumber(now), utcMonthNumber(now), holderId ?? null],
  );
}
