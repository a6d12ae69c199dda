import type { Queryable } from '../store/database.ts';

/** Stand-in for "no limit" in headroom arithmetic (well above any real budget, below 2^63). */
const UNLIMITED = '9000000000000000000';

export type LeaseGrant = { grantedMicros: number; headroomMicros: number };

/** What is left of a key's tightest window, net of budget other processes hold. */
const keyHeadroomSql = (day: string, month: string): string => `LEAST(
  COALESCE(daily_limit_micros - (CASE WHEN spend_day = ${day} THEN spend_day_micros ELSE 0 END) - leased_micros, ${UNLIMITED}),
  COALESCE(monthly_limit_micros - (CASE WHEN spend_month = ${month} THEN spend_month_micros ELSE 0 END) - leased_micros, ${UNLIMITED}),
  COALESCE(total_limit_micros - spend_total_micros - leased_micros, ${UNLIMITED}))`;

/** The key's headroom, read without a lock and without leasing anything (for output caps). */
export async function readKeyHeadroom(db: Queryable, args: { keyId: string; day: number; month: number }): Promise<number> {
  const result = await db.query<{ headroom: number }>(`SELECT ${keyHeadroomSql('$2', '$3')}::bigint AS headroom FROM api_keys WHERE id = $1`, [
    args.keyId,
    args.day,
    args.month,
  ]);
  return result.rows[0]?.headroom ?? 0;
}

/**
 * Takes a slice of a key's remaining budget in ONE statement: the row is locked, the
 * headroom of every window (day, month, total) is computed net of what other processes
 * already hold, and the grant is recorded on the key and in this process's lease row.
 * Grants `min(want, max(need, headroom / 2))` when headroom ≥ need, else nothing: half
 * the headroom at most, so a busy process leaves budget for the others.
 */
export async function leaseFromKey(
  db: Queryable,
  args: { keyId: string; holderId: string; needMicros: number; wantMicros: number; day: number; month: number },
): Promise<LeaseGrant> {
  const result = await db.query<{ granted: number; headroom: number }>(
    `WITH target AS (
       SELECT id, ${keyHeadroomSql('$5', '$6')} AS headroom
       FROM api_keys WHERE id = $1 FOR UPDATE
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
  );
  const row = result.rows[0];
  return { grantedMicros: row?.granted ?? 0, headroomMicros: row?.headroom ?? 0 };
}

/** The same for an account's credit: granted − used − held by processes. */
export async function leaseFromAccount(
  db: Queryable,
  args: { accountId: string; holderId: string; needMicros: number; wantMicros: number },
): Promise<LeaseGrant> {
  const result = await db.query<{ granted: number; headroom: number }>(
    `WITH target AS (
       SELECT id, granted_micros - usage_micros - leased_micros AS headroom
       FROM accounts WHERE id = $1 FOR UPDATE
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
  );
  const row = result.rows[0];
  return { grantedMicros: row?.granted ?? 0, headroomMicros: row?.headroom ?? 0 };
}

/**
 * Gives back leases of processes that stopped heart-beating (crashed): their held
 * budget returns to the keys and accounts, so money is never stranded. Usage such a
 * process served but had not settled yet is lost with it (a few milliseconds' worth:
 * settlement is group-committed every few milliseconds).
 */
export async function reclaimStaleLeases(db: Queryable, staleAfterSeconds: number): Promise<number> {
  return reclaim(db, 'heartbeat_at < now() - make_interval(secs => $1)', [staleAfterSeconds]);
}

/**
 * A stopping process's own deregistration: whatever it still holds (a lease with a call
 * in flight at shutdown, or one whose final flush failed) goes back with its row, in the
 * same statement. Deleting the row alone would cascade away the lease rows and leave
 * their amounts counted in `leased_micros` for ever.
 */
export async function releaseHolderLeases(db: Queryable, holderId: string): Promise<number> {
  return reclaim(db, 'id = $1', [holderId]);
}

async function reclaim(db: Queryable, holders: string, params: unknown[]): Promise<number> {
  const result = await db.query<{ reclaimed: number }>(
    `WITH stale AS (
       DELETE FROM lease_holders WHERE ${holders} RETURNING id
     ), leases AS (
       SELECT l.key_id, l.account_id, l.amount_micros FROM budget_leases l JOIN stale s ON s.id = l.holder_id
     ), keys AS (
       UPDATE api_keys k SET leased_micros = GREATEST(0, k.leased_micros - x.amount)
       FROM (SELECT key_id, sum(amount_micros) AS amount FROM leases WHERE key_id IS NOT NULL GROUP BY key_id) x
       WHERE k.id = x.key_id RETURNING k.id
     ), accounts_done AS (
       UPDATE accounts a SET leased_micros = GREATEST(0, a.leased_micros - x.amount)
       FROM (SELECT account_id, sum(amount_micros) AS amount FROM leases WHERE account_id IS NOT NULL GROUP BY account_id) x
       WHERE a.id = x.account_id RETURNING a.id
     )
     SELECT (SELECT count(*) FROM stale)::int AS reclaimed`,
    params,
  );
  return result.rows[0]?.reclaimed ?? 0;
}
