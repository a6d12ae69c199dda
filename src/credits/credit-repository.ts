import type { Database, Queryable } from '../store/database.ts';

export type CreditGrant = {
  id: number;
  currency: string;
  amount: string;
  usdRate: string;
  usdMicros: number;
  note: string | null;
  createdAt: Date;
};

/**
 * Adds a grant to the ledger and to the account's running total in one transaction.
 * The USD equivalent is computed by PostgreSQL's numeric arithmetic (exact), rounded
 * to whole micro-USD.
 */
export async function grantCredits(db: Database, grant: { accountId: string; currency: string; amount: string; usdRate: string; note?: string }): Promise<CreditGrant> {
  return db.transaction(async (tx) => {
    const result = await tx.query<{
      id: number;
      currency: string;
      amount: string;
      usd_rate: string;
      usd_micros: number;
      note: string | null;
      created_at: Date;
    }>(
      `INSERT INTO credit_grants (account_id, currency, amount, usd_rate, usd_micros, note)
       VALUES ($1, $2, $3::numeric, $4::numeric, round($3::numeric * $4::numeric * 1000000)::bigint, $5)
       RETURNING id, currency, amount::text, usd_rate::text, usd_micros, note, created_at`,
      [grant.accountId, grant.currency, grant.amount, grant.usdRate, grant.note ?? null],
    );
    const row = result.rows[0];
    if (!row) throw new Error('credit grant insert returned no row');
    await tx.query('UPDATE accounts SET granted_micros = granted_micros + $2 WHERE id = $1', [grant.accountId, row.usd_micros]);
    return {
      id: row.id,
      currency: row.currency,
      amount: row.amount,
      usdRate: row.usd_rate,
      usdMicros: row.usd_micros,
      note: row.note,
      createdAt: row.created_at,
    };
  });
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
