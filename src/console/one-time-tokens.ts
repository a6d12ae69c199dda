import type { Queryable } from '../store/database.ts';
import { hashToken, newToken } from './session-repository.ts';

export type TokenPurpose = 'setup' | 'set_password';

/** Setup links last a day, invite links a week; each works once. */
const LIFETIME_MS: Record<TokenPurpose, number> = { setup: 24 * 60 * 60 * 1000, set_password: 7 * 24 * 60 * 60 * 1000 };

export async function issueToken(db: Queryable, purpose: TokenPurpose, userId: string | null, now: Date): Promise<string> {
  const token = newToken();
  await db.query('INSERT INTO one_time_tokens (token_hash, purpose, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
    hashToken(token),
    purpose,
    userId,
    now,
    new Date(now.getTime() + LIFETIME_MS[purpose]),
  ]);
  return token;
}

/**
 * Spends a token: marks it used in the same statement that checks it, so two
 * concurrent uses cannot both succeed. Returns its user (null for setup) or undefined.
 */
export async function spendToken(db: Queryable, purpose: TokenPurpose, token: string, now: Date): Promise<{ userId: string | null } | undefined> {
  const result = await db.query<{ user_id: string | null }>(
    `UPDATE one_time_tokens SET used_at = $3 WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3 RETURNING user_id`,
    [hashToken(token), purpose, now],
  );
  return result.rows[0] ? { userId: result.rows[0].user_id } : undefined;
}
