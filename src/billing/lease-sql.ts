import { utcDayNumber, utcMonthNumber } from '../core/utc-windows.ts';
import type { Queryable } from '../store/database.ts';
import { MISSING_OWNERS } from './usage-owner-check.ts';

/** Stand-in for "no limit" in headroom arithmetic (well above any real budget, below 2^63). */
const UNLIMITED = '9000000000000000000';

export type LeaseGrant = { grantedMicros: number; headroomMicros: number };

/** What is left of a key's tightest window, net of budget other processes hold. */
const keyHeadroomSql = (day: string, month: string): string => `LEAST(
  COALESCE(daily_limit_micros - (CASE WHEN spend_day = ${day} THEN spend_day_micros ELSE 0 END) - leased_micros, ${UNLIMITED}),
  COALESCE(monthly_limit_micros - (CASE WHEN spend_month = ${month} THEN spend_month_micros ELSE 0 END) - leased_micros, ${UNLIMITED}),
  COALESCE(total_limit_micros - spend_total_micros - leased_micros, ${UNLIMITED}))`;

/** Deadlock victim, serialization failure: PostgreSQL rolled the whole statement back. */
const CONFLICT_CODES = new Set(['40P01', '40001']);

/**
 * Runs a one-statement top-up again when PostgreSQL chose it as a conflict's victim:
 * nothing of it was applied, and a caller waiting on it should get its budget, not a 500.
 * (Lock order keeps these rare; two processes settling several keys can still cross.)
 */
async function retryConflicts<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= attempts || typeof code !== 'string' || !CONFLICT_CODES.has(code)) throw error;
    }
  }
}

/** The key's headroom, read without a lock and without leasing anything (for output caps). */
export async function readKeyHeadroom(db: Queryable, args: { keyId: string; day: number; month: number }): Promise<number> {
  const result = await db.query<{ headroom: number }>(`SELECT ${keyHeadroomSql('$2', '$3')}::bigint AS headroom FROM api_keys WHERE id = $1`, [args.keyId, args.day, args.month]);
  return result.rows[0]?.headroom ?? 0;
}

/**
 * Takes a slice of a key's remaining budget in ONE statement: the row is locked (NO KEY
 * UPDATE, which foreign-key checks of concurrent usage rows do not wait for), the
 * headroom of every window (day, month, total) is computed net of what other processes
 * already hold, and the grant is recorded on the key and in this process's lease row
 * (key row first, lease row second: the order a group commit takes them in too).
 * Grants `min(want, max(need, headroom / 2))` when headroom ≥ need, else nothing: half
 * the headroom at most, so a busy process leaves budget for the others.
 */
export async function leaseFromKey(db: Queryable, args: { keyId: string; holderId: string; needMicros: number; wantMicros: number; day: number; month: number }): Promise<LeaseGrant> {
  const result = await retryConflicts(() =>
    db.query<{ granted: number; headroom: number }>(
      `WITH target AS (
       SELECT id, ${keyHeadroomSql('$5', '$6')} AS headroom
       FROM api_keys WHERE id = $1 FOR NO KEY UPDATE
     ), decided AS (
       SELECT id, headroom,
         CASE WHEN headroom >= $3 THEN LEAST($4::bigint, GREATEST($3::bigint, headroom / 2)) ELSE 0 END AS granted
       FROM target
     ), updated AS (
       UPDATE api_keys k SET leased_micros = k.leased_micros + d.granted
       FROM decided d WHERE k.id = d.id AND d.granted > 0
       RETURNING d.granted
     ), recorded AS (
       INSERT INTO budget_leases (holder_id, key_id, amount_micros)
       SELECT $2, $1, granted FROM updated
       ON CONFLICT (holder_id, key_id) WHERE key_id IS NOT NULL
       DO UPDATE SET amount_micros = budget_leases.amount_micros + EXCLUDED.amount_micros
     )
     SELECT granted::bigint AS granted, LEAST(headroom, ${UNLIMITED})::bigint AS headroom FROM decided`,
      [args.keyId, args.holderId, args.needMicros, args.wantMicros, args.day, args.month],
    ),
  );
  const row = result.rows[0];
  return { grantedMicros: row?.granted ?? 0, headroomMicros: row?.headroom ?? 0 };
}

/** The same for an account's credit: granted − used − held by processes. */
export async function leaseFromAccount(db: Queryable, args: { accountId: string; holderId: string; needMicros: number; wantMicros: number }): Promise<LeaseGrant> {
  const result = await retryConflicts(() =>
    db.query<{ granted: number; headroom: number }>(
      `WITH target AS (
       SELECT id, granted_micros - usage_micros - leased_micros AS headroom
       FROM accounts WHERE id = $1 FOR NO KEY UPDATE
     ), decided AS (
       SELECT id, headroom,
         CASE WHEN headroom >= $3 THEN LEAST($4::bigint, GREATEST($3::bigint, headroom / 2)) ELSE 0 END AS granted
       FROM target
     ), updated AS (
       UPDATE accounts a SET leased_micros = a.leased_micros + d.granted
       FROM decided d WHERE a.id = d.id AND d.granted > 0
       RETURNING d.granted
     ), recorded AS (
       INSERT INTO budget_leases (holder_id, account_id, amount_micros)
       SELECT $2, $1, granted FROM updated
       ON CONFLICT (holder_id, account_id) WHERE account_id IS NOT NULL
       DO UPDATE SET amount_micros = budget_leases.amount_micros + EXCLUDED.amount_micros
     )
     SELECT granted::bigint AS granted, headroom::bigint AS headroom FROM decided`,
      [args.accountId, args.holderId, args.needMicros, args.wantMicros],
    ),
  );
  const row = result.rows[0];
  return { grantedMicros: row?.granted ?? 0, headroomMicros: row?.headroom ?? 0 };
}

/**
 * Gives back leases of processes that stopped heart-beating (crashed): their held
 * budget returns to the keys and accounts, so money is never stranded, and each call
 * they had journaled as open is settled as `interrupted`, billed for what it had cost
 * so far (observed tokens, or the input estimate when nothing was observed).
 */
export async function reclaimStaleLeases(db: Queryable, staleAfterSeconds: number, now = new Date()): Promise<number> {
  const stale = 'heartbeat_at < now() - make_interval(secs => $1)';
  // Almost always there is no dead process: one read of the small holders table says so.
  // The reclaiming statement touches six tables and was planned afresh each time: 45-130
  // ms of the embedded engine's start (cold caches), and again every few seconds after.
  // A holder that turns stale just after the read is reclaimed at the next look.
  const found = await db.query(`SELECT 1 FROM lease_holders WHERE ${stale} LIMIT 1`, [staleAfterSeconds]);
  if (found.rows.length === 0) return 0;
  return reclaim(db, stale, [staleAfterSeconds], now);
}

/**
 * A stopping process's own deregistration: whatever it still holds (a lease with a call
 * in flight at shutdown, or one whose final flush failed) goes back with its row, in the
 * same statement. Deleting the row alone would cascade away the lease rows and leave
 * their amounts counted in `leased_micros` for ever.
 */
export async function releaseHolderLeases(db: Queryable, holderId: string, now = new Date()): Promise<number> {
  return reclaim(db, 'id = $1', [holderId], now);
}

/**
 * Settles the calls a run's earlier holder journaled and never finished, as `interrupted`
 * at their journaled tokens and cost, when another process takes the run over: the
 * resumed response then counts them before it finishes, instead of waiting for the
 * holder's heartbeat to go stale. The holder's leases stay until the reclaimer returns
 * them; a holder still alive that settles such a call later finds its row already written
 * and bills it once (the replay-safe batch form).
 */
export async function settleAbandonedRunCalls(db: Queryable, runId: string, holderId: string, now = new Date()): Promise<number> {
  const result = await db.query<{ settled: number }>(
    `WITH leases AS (
       SELECT NULL::uuid AS key_id, NULL::uuid AS account_id, 0::bigint AS amount_micros WHERE false
     ), interrupted AS (
       DELETE FROM open_calls c WHERE c.agent_run_id = $1 AND c.holder_id <> $2::uuid RETURNING c.*
     ), ${settleInterruptedSql('$3', '$4')}
     SELECT (SELECT count(*) FROM inserted)::int AS settled, require_usage_owners(${MISSING_OWNERS('inserted', 'keys', 'accounts_done')}) AS owners_checked`,
    [runId, holderId, utcDayNumber(now), utcMonthNumber(now)],
  );
  return result.rows[0]?.settled ?? 0;
}

/**
 * One statement: delete the holders, settle their open calls (usage rows + spend), and
 * return their leases.
 */
async function reclaim(db: Queryable, holders: string, params: unknown[], now: Date): Promise<number> {
  const result = await db.query<{ reclaimed: number }>(
    `WITH stale AS (
       DELETE FROM lease_holders WHERE ${holders} RETURNING id
     ), leases AS (
       SELECT l.key_id, l.account_id, l.amount_micros FROM budget_leases l JOIN stale s ON s.id = l.holder_id
     ), interrupted AS (
       DELETE FROM open_calls c USING stale s WHERE c.holder_id = s.id RETURNING c.*
     ), ${settleInterruptedSql(`$${params.length + 1}`, `$${params.length + 2}`)}
     SELECT (SELECT count(*) FROM stale)::int AS reclaimed, require_usage_owners(${MISSING_OWNERS('inserted', 'keys', 'accounts_done')}) AS owners_checked`,
    [...params, utcDayNumber(now), utcMonthNumber(now)],
  );
  return result.rows[0]?.reclaimed ?? 0;
}

/**
 * The CTEs after `leases` (amounts to return) and `interrupted` (deleted open_calls rows):
 * usage rows for the calls, then each key and account row updated once (spend and lease
 * together): two updates of one row in one statement would lose one of them.
 */
const settleInterruptedSql = (day: string, month: string): string => `inserted AS (
       INSERT INTO usage_log (id, account_id, key_id, request_id, endpoint, requested_model, model, provider, upstream_model,
         status, http_status, error_code, input_tokens, output_tokens, cost_micros, latency_ms, streamed, agent_id, agent_run_id, created_at)
       SELECT id, account_id, key_id, request_id, endpoint, requested_model, model, provider, upstream_model,
         'interrupted', NULL, 'process_died', input_tokens, output_tokens, cost_micros,
         (extract(epoch FROM (updated_at - started_at)) * 1000)::int, streamed, agent_id, agent_run_id, started_at
       FROM interrupted
       -- started_at is the created_at the call's own settlement writes: a row it wrote first is this one.
       ON CONFLICT (id, created_at) DO NOTHING
       RETURNING key_id, account_id, cost_micros
     ), key_deltas AS (
       SELECT COALESCE(s.key_id, l.key_id) AS id, COALESCE(s.spend, 0) AS spend, COALESCE(l.amount, 0) AS lease
       FROM (SELECT key_id, sum(cost_micros) AS spend FROM inserted WHERE key_id IS NOT NULL GROUP BY key_id) s
       FULL JOIN (SELECT key_id, sum(amount_micros) AS amount FROM leases WHERE key_id IS NOT NULL GROUP BY key_id) l ON l.key_id = s.key_id
     ), keys AS (
       UPDATE api_keys k SET
         leased_micros = GREATEST(0, k.leased_micros - d.lease),
         spend_day_micros = (CASE WHEN k.spend_day = ${day} THEN k.spend_day_micros ELSE 0 END) + d.spend,
         spend_day = ${day},
         spend_month_micros = (CASE WHEN k.spend_month = ${month} THEN k.spend_month_micros ELSE 0 END) + d.spend,
         spend_month = ${month},
         spend_total_micros = k.spend_total_micros + d.spend
       FROM key_deltas d WHERE k.id = d.id RETURNING k.id
     ), account_deltas AS (
       SELECT COALESCE(s.account_id, l.account_id) AS id, COALESCE(s.spend, 0) AS spend, COALESCE(l.amount, 0) AS lease
       FROM (SELECT account_id, sum(cost_micros) AS spend FROM inserted GROUP BY account_id) s
       FULL JOIN (SELECT account_id, sum(amount_micros) AS amount FROM leases WHERE account_id IS NOT NULL GROUP BY account_id) l
         ON l.account_id = s.account_id
     ), accounts_done AS (
       UPDATE accounts a SET leased_micros = GREATEST(0, a.leased_micros - d.lease), usage_micros = a.usage_micros + d.spend
       FROM account_deltas d WHERE a.id = d.id RETURNING a.id
     )`;
