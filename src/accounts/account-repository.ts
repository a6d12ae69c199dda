import { randomUUID } from 'node:crypto';
import { changePayload } from '../store/change-sync.ts';
import type { Database, Queryable } from '../store/database.ts';

/** NOTIFY channel for account changes (plan): processes drop their cached copy. */
export const ACCOUNT_CHANGES_CHANNEL = 'junction_account_changes';
export const ACCOUNT_ACKS_CHANNEL = 'junction_account_change_acks';

export type Account = { id: string; name: string; plan: string; isDefault: boolean; createdAt: Date };

type AccountRow = { id: string; name: string; plan: string; is_default: boolean; created_at: Date };
const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  isDefault: row.is_default,
  createdAt: row.created_at,
});
const COLUMNS = 'id, name, plan, is_default, created_at';

/**
 * Creates the default account once; concurrent first starts agree on one row. It is read
 * first: at every later start that one read is all, where the insert that conflicts (and
 * then the read) cost the embedded engine 20-35 ms more of its start (a write statement
 * planned and run against the partial unique index).
 */
export async function ensureDefaultAccount(db: Queryable): Promise<{ account: Account; created: boolean }> {
  const existing = await readDefaultAccount(db);
  if (existing) return { account: existing, created: false };
  const inserted = await db.query<AccountRow>(
    `INSERT INTO accounts (name, is_default) VALUES ('default', true)
     ON CONFLICT (is_default) WHERE is_default DO NOTHING RETURNING ${COLUMNS}`,
  );
  if (inserted.rows[0]) return { account: toAccount(inserted.rows[0]), created: true };
  // Another process's first start inserted it between the read and the insert.
  return { account: (await readDefaultAccount(db)) as Account, created: false };
}

async function readDefaultAccount(db: Queryable): Promise<Account | undefined> {
  const result = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE is_default`);
  return result.rows[0] ? toAccount(result.rows[0]) : undefined;
}

export async function createAccount(db: Queryable, name: string, plan = 'default'): Promise<Account> {
  const result = await db.query<AccountRow>(`INSERT INTO accounts (name, plan) VALUES ($1, $2) RETURNING ${COLUMNS}`, [name, plan]);
  return toAccount(result.rows[0] as AccountRow);
}

export async function findAccount(db: Queryable, id: string): Promise<Account | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const result = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [id]);
  return result.rows[0] ? toAccount(result.rows[0]) : undefined;
}

export async function listAccounts(db: Queryable): Promise<Account[]> {
  const result = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts ORDER BY created_at, id`);
  return result.rows.map(toAccount);
}

/**
 * Changes the plan and announces it (same transaction), so every process drops its
 * cached plan; `changeId` is what their acknowledgements name (AccountPlans.changed).
 */
export async function setAccountPlan(db: Database, id: string, plan: string): Promise<{ account: Account; changeId: string } | undefined> {
  return db.transaction(async (tx) => {
    const result = await tx.query<AccountRow>(`UPDATE accounts SET plan = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [id, plan]);
    const row = result.rows[0];
    if (!row) return undefined;
    const changeId = randomUUID();
    await tx.query('SELECT pg_notify($1, $2)', [ACCOUNT_CHANGES_CHANNEL, changePayload(id, changeId)]);
    return { account: toAccount(row), changeId };
  });
}
