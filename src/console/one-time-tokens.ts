import type { Queryable } from '../store/database.ts';
import { hashToken, newToken } from './session-repository.ts';

/**
 * `setup`: the first owner's link. `set_password`: links issued before invitations, each
 * bound to one account by migration 0013; they are spent, no longer issued.
 */
export type TokenPurpose = 'setup' | 'set_password';

/** A setup link lasts a day and works once. */
const SETUP_LIFETIME_MS = 24 * 60 * 60 * 1000;

export async function issueSetupTokenRow(db: Queryable, now: Date): Promise<string> {
  const token = newToken();
  await db.query("INSERT INTO one_time_tokens (token_hash, purpose, user_id, created_at, expires_at) VALUES ($1, 'setup', NULL, $2, $3)", [
    hashToken(token),
    now,
    new Date(now.getTime() + SETUP_LIFETIME_MS),
  ]);
  return token;
}

/** Whether a token would be accepted now, without spending it (so that work on its behalf is done only for a real one). */
export async function isUsableToken(db: Queryable, purpose: TokenPurpose, token: string, now: Date): Promise<boolean> {
  const result = await db.query('SELECT 1 FROM one_time_tokens WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3', [hashToken(token), purpose, now]);
  return result.rows.length > 0;
}

/**
 * Spends a token: marks it used in the same statement that checks it, so two
 * concurrent uses cannot both succeed. Returns its user and account (null for setup) or undefined.
 */
export async function spendToken(db: Queryable, purpose: TokenPurpose, token: string, now: Date): Promise<{ userId: string | null; accountId: string | null } | undefined> {
  const result = await db.query<{ user_id: string | null; account_id: string | null }>(
    `UPDATE one_time_tokens SET used_at = $3 WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3 RETURNING user_id, account_id`,
    [hashToken(token), purpose, now],
  );
  const row = result.rows[0];
  return row ? { userId: row.user_id, accountId: row.account_id } : undefined;
}
