import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../store/database.ts';

/** A session lives 12 h without use, and 7 days at most. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;

export type Session = { tokenHash: Buffer; userId: string; accountId: string; csrfToken: string; createdAt: Date; expiresAt: Date };

export const hashToken = (token: string): Buffer => createHash('sha256').update(token).digest();
export const newToken = (): string => randomBytes(32).toString('base64url');

type SessionRow = { token_hash: Buffer; user_id: string; account_id: string; csrf_token: string; created_at: Date; expires_at: Date };
const toSession = (row: SessionRow): Session => ({
  tokenHash: Buffer.from(row.token_hash),
  userId: row.user_id,
  accountId: row.account_id,
  csrfToken: row.csrf_token,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** Starts a session; returns the cookie's token (stored only as its hash). */
export async function createSession(db: Queryable, userId: string, accountId: string, now: Date): Promise<{ token: string; session: Session }> {
  const token = newToken();
  const result = await db.query<SessionRow>(
    `INSERT INTO console_sessions (token_hash, user_id, account_id, csrf_token, created_at, last_seen_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $5, $6) RETURNING token_hash, user_id, account_id, csrf_token, created_at, expires_at`,
    [hashToken(token), userId, accountId, newToken(), now, new Date(now.getTime() + SESSION_IDLE_MS)],
  );
  return { token, session: toSession(result.rows[0] as SessionRow) };
}

/** A session in use is written at most this often: its idle expiry slides by the minute, not on every request. */
export const SESSION_TOUCH_MS = 60_000;

/**
 * The live session for a cookie token, its idle expiry slid forward (never past the
 * absolute limit) once SESSION_TOUCH_MS has passed since it last was. Expired sessions are
 * deleted on sight. Why not on every request: a dashboard's every read would be a write,
 * and on the embedded store the gateway's statements wait behind each one.
 */
export async function touchSession(db: Queryable, token: string, now: Date): Promise<Session | undefined> {
  const tokenHash = hashToken(token);
  const found = await db.query<SessionRow & { last_seen_at: Date }>(
    'SELECT token_hash, user_id, account_id, csrf_token, created_at, expires_at, last_seen_at FROM console_sessions WHERE token_hash = $1',
    [tokenHash],
  );
  const row = found.rows[0];
  if (!row) return undefined;
  if (row.expires_at.getTime() <= now.getTime()) {
    await db.query('DELETE FROM console_sessions WHERE token_hash = $1', [tokenHash]);
    return undefined;
  }
  if (now.getTime() - row.last_seen_at.getTime() < SESSION_TOUCH_MS) return toSession(row);
  const result = await db.query<SessionRow>(
    `UPDATE console_sessions SET last_seen_at = $2,
       expires_at = LEAST($2::timestamptz + make_interval(secs => $3), created_at + make_interval(secs => $4))
     WHERE token_hash = $1 AND expires_at > $2
     RETURNING token_hash, user_id, account_id, csrf_token, created_at, expires_at`,
    [tokenHash, now, SESSION_IDLE_MS / 1000, SESSION_ABSOLUTE_MS / 1000],
  );
  // Gone in between (signed out on another tab): no session.
  return result.rows[0] ? toSession(result.rows[0]) : undefined;
}

export async function switchSessionAccount(db: Queryable, tokenHash: Buffer, accountId: string): Promise<void> {
  await db.query('UPDATE console_sessions SET account_id = $2 WHERE token_hash = $1', [tokenHash, accountId]);
}

export async function deleteSession(db: Queryable, tokenHash: Buffer): Promise<void> {
  await db.query('DELETE FROM console_sessions WHERE token_hash = $1', [tokenHash]);
}

/** A removed member's sessions on that account end at once. */
export async function endSessionsOn(db: Queryable, userId: string, accountId: string): Promise<void> {
  await db.query('DELETE FROM console_sessions WHERE user_id = $1 AND account_id = $2', [userId, accountId]);
}
