import type { Database, Queryable } from '../store/database.ts';

export type CreditGrant = {
  id: number;
  currency: string;
  amount: string;
  usdRate: string;
  usdMicros: number;
  note: string | null;
  /** The console person who granted it; null when the operator's CLI did. */
  grantedBy: string | null;
  createdAt: Date;
};

type GrantRow = {
  id: number;
  currency: string;
  amount: string;
  usd_rate: string;
  usd_micros: number;
  note: string | null;
  granted_by: string | null;
  created_at: Date;
};
const GRANT_COLUMNS = 'id, currency, amount::text AS amount, usd_rate::text AS usd_rate, usd_micros, note, granted_by, created_at';
const toGrant = (row: GrantRow): CreditGrant => ({
  id: Number(row.id),
  currency: row.currency,
  amount: row.amount,
  usdRate: row.usd_rate,
  usdMicros: Number(row.usd_micros),
  note: row.note,
  grantedBy: row.granted_by,
  createdAt: row.created_at,
});

/**
 * Adds a grant to the ledger and to the account's running total in one transaction.
 * The USD equivalent is computed by PostgreSQL's numeric arithmetic (exact), rounded
 * to whole micro-USD.
 */
export async function grantCredits(
  db: Database,
  grant: { accountId: string; currency: string; amount: string; usdRate: string; note?: string | undefined; grantedBy?: string | undefined },
): Promise<CreditGrant> {
  return db.transaction(async (tx) => {
    const result = await tx.query<GrantRow>(
      `INSERT INTO credit_grants (account_id, currency, amount, usd_rate, usd_micros, note, granted_by)
       VALUES ($1, $2, $3::numeric, $4::numeric, round($3::numeric * $4::numeric * 1000000)::bigint, $5, $6)
       RETURNING ${GRANT_COLUMNS}`,
      [grant.accountId, grant.currency, grant.amount, grant.usdRate, grant.note ?? null, grant.grantedBy ?? null],
    );
    const row = result.rows[0];
    if (!row) throw new Error('credit grant insert returned no row');
    await tx.query('UPDATE accounts SET granted_micros = granted_micros + $2 WHERE id = $1', [grant.accountId, row.usd_micros]);
    return toGrant(row);
  });
}

/** The account's grants, newest first, at most `limit`. */
export async function listGrants(db: Queryable, accountId: string, limit: number): Promise<CreditGrant[]> {
  const result = await db.query<GrantRow>(`SELECT ${GRANT_COLUMNS} FROM credit_grants WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [accountId, limit]);
  return result.rows.map(toGrant);
}

export type CreditSummary = {
  grantedMicros: number;
  usageMicros: number;
  /** Budget currently reserved by in-flight calls (held in leases). */
  reservedMicros: number;
  byCurrency: Array<{ currency: string; amount: string; usdMicros: number }>;
};

export async function getCreditSummary(db: Queryable, accountId: string): Promise<CreditSummary> {
  const account = await db.query<{ granted_micros: number; usage_micros: number; leased_micros: number }>('SELECT granted_micros, usage_micros, leased_micros FROM accounts WHERE id = $1', [
    accountId,
  ]);
  const totals = await db.query<{ currency: string; amount: string; usd_micros: number }>(
    `SELECT currency, sum(amount)::text AS amount, sum(usd_micros)::bigint AS usd_micros
     FROM credit_grants WHERE account_id = $1 GROUP BY currency ORDER BY currency`,
    [accountId],
  );
  const row = account.rows[0];
  return {
    grantedMicros: row?.granted_micros ?? 0,
    usageMicros: row?.usage_micros ?? 0,
    reservedMicros: row?.leased_micros ?? 0,
    byCurrency: totals.rows.map((total) => ({
      currency: total.currency,
      amount: total.amount,
      usdMicros: total.usd_micros,
    })),
  };
}

export type AccountBalance = { id: string; name: string; isDefault: boolean; grantedMicros: number; usageMicros: number };

type BalanceRow = { id: string; name: string; is_default: boolean; granted_micros: number; usage_micros: number };
const BALANCE_COLUMNS = 'id, name, is_default, granted_micros, usage_micros';
const toBalance = (row: BalanceRow): AccountBalance => ({
  id: row.id,
  name: row.name,
  isDefault: row.is_default,
  grantedMicros: Number(row.granted_micros),
  usageMicros: Number(row.usage_micros),
});

/** Every account with what it was granted and has used: the operator's list to grant to. */
export async function listAccountBalances(db: Queryable): Promise<AccountBalance[]> {
  const result = await db.query<BalanceRow>(`SELECT ${BALANCE_COLUMNS} FROM accounts ORDER BY is_default DESC, lower(name), id`);
  return result.rows.map(toBalance);
}

/** One account's balance, or undefined when no account has that id. */
export async function findAccountBalance(db: Queryable, accountId: string): Promise<AccountBalance | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(accountId)) return undefined;
  const result = await db.query<BalanceRow>(`SELECT ${BALANCE_COLUMNS} FROM accounts WHERE id = $1`, [accountId]);
  return result.rows[0] ? toBalance(result.rows[0]) : undefined;
}
