import type { Queryable } from '../store/database.ts';
import type { Role } from './contract/session.ts';
import { hashToken, newToken } from './session-repository.ts';

/** An invite link works for 7 days. */
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** Live invitations an account may hold at once: inviting stays cheap for everyone else. */
export const MAX_OPEN_INVITATIONS = 200;

export type InvitationRow = {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  invited_by_email: string | null;
  created_at: Date;
  expires_at: Date;
};

const COLUMNS = `i.id, i.account_id, i.email, i.role, u.email AS invited_by_email, i.created_at, i.expires_at`;
const OPEN = 'i.accepted_at IS NULL AND i.revoked_at IS NULL';

/** The account's invitations still waiting for an answer (expired ones included, marked by their date). */
export async function listOpenInvitations(db: Queryable, accountId: string): Promise<InvitationRow[]> {
  const result = await db.query<InvitationRow>(`SELECT ${COLUMNS} FROM invitations i LEFT JOIN users u ON u.id = i.invited_by WHERE i.account_id = $1 AND ${OPEN} ORDER BY i.created_at, i.id`, [
    accountId,
  ]);
  return result.rows;
}

/** Open invitations whose links still work (expired ones stay listed but cost nothing). */
export async function countLiveInvitations(db: Queryable, accountId: string, now: Date): Promise<number> {
  const result = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM invitations i WHERE i.account_id = $1 AND ${OPEN} AND i.expires_at > $2`, [accountId, now]);
  return result.rows[0]?.n ?? 0;
}

/** The open invitation of this email in this account, locked until the transaction ends. */
export async function lockOpenInvitationFor(db: Queryable, accountId: string, email: string): Promise<{ id: string; role: Role } | undefined> {
  const result = await db.query<{ id: string; role: Role }>(`SELECT i.id, i.role FROM invitations i WHERE i.account_id = $1 AND lower(i.email) = lower($2) AND ${OPEN} FOR UPDATE`, [accountId, email]);
  return result.rows[0];
}

/** Creates an invitation; returns it and its token (stored only as a hash). */
export async function createInvitation(db: Queryable, invitation: { accountId: string; email: string; role: Role; invitedBy: string; now: Date }): Promise<{ row: InvitationRow; token: string }> {
  const token = newToken();
  const result = await db.query<{ id: string }>(
    `INSERT INTO invitations (account_id, email, role, token_hash, invited_by, created_at, expires_at) VALUES ($1, lower($2), $3, $4, $5, $6, $7) RETURNING id`,
    [invitation.accountId, invitation.email, invitation.role, hashToken(token), invitation.invitedBy, invitation.now, new Date(invitation.now.getTime() + INVITATION_LIFETIME_MS)],
  );
  const id = (result.rows[0] as { id: string }).id;
  const row = await db.query<InvitationRow>(`SELECT ${COLUMNS} FROM invitations i LEFT JOIN users u ON u.id = i.invited_by WHERE i.id = $1`, [id]);
  return { row: row.rows[0] as InvitationRow, token };
}

/** The open invitation with this id in this account (another account's id is simply not found). */
export async function findOpenInvitation(db: Queryable, accountId: string, id: string): Promise<{ id: string; role: Role } | undefined> {
  const result = await db.query<{ id: string; role: Role }>(`SELECT i.id, i.role FROM invitations i WHERE i.id = $1 AND i.account_id = $2 AND ${OPEN}`, [id, accountId]);
  return result.rows[0];
}

export async function revokeInvitation(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query(`UPDATE invitations i SET revoked_at = $2 WHERE i.id = $1 AND ${OPEN}`, [id, now]);
}

/** Revokes the open invitations a person made in an account, of the given roles (those they may no longer invite as). */
export async function revokeInvitationsBy(db: Queryable, accountId: string, userId: string, roles: readonly Role[], now: Date): Promise<void> {
  await db.query(`UPDATE invitations i SET revoked_at = $4 WHERE i.account_id = $1 AND i.invited_by = $2 AND i.role = ANY($3::text[]) AND ${OPEN}`, [accountId, userId, roles, now]);
}

export type UsableInvitation = { id: string; accountId: string; accountName: string; email: string; role: Role; createdAt: Date; expiresAt: Date };

/** The invitation a token opens, if it is open and not expired; `lock` holds it until the transaction ends. */
export async function findUsableInvitation(db: Queryable, token: string, now: Date, lock = false): Promise<UsableInvitation | undefined> {
  const result = await db.query<{ id: string; account_id: string; account_name: string; email: string; role: Role; created_at: Date; expires_at: Date }>(
    `SELECT i.id, i.account_id, a.name AS account_name, i.email, i.role, i.created_at, i.expires_at FROM invitations i JOIN accounts a ON a.id = i.account_id
     WHERE i.token_hash = $1 AND ${OPEN} AND i.expires_at > $2 ${lock ? 'FOR UPDATE OF i' : ''}`,
    [hashToken(token), now],
  );
  const row = result.rows[0];
  return row ? { id: row.id, accountId: row.account_id, accountName: row.account_name, email: row.email, role: row.role, createdAt: row.created_at, expiresAt: row.expires_at } : undefined;
}

export async function markAccepted(db: Queryable, id: string, userId: string, now: Date): Promise<void> {
  await db.query('UPDATE invitations SET accepted_at = $3, accepted_by = $2 WHERE id = $1', [id, userId, now]);
}

/** Whether another account invited this email before this invitation, and that invitation is still open. */
export async function invitedEarlierElsewhere(db: Queryable, invitation: UsableInvitation, now: Date): Promise<boolean> {
  const result = await db.query(
    `SELECT 1 FROM invitations i WHERE lower(i.email) = lower($1) AND i.account_id <> $2 AND ${OPEN} AND i.expires_at > $3
       AND (i.created_at, i.id) < ($4::timestamptz, $5::uuid) LIMIT 1`,
    [invitation.email, invitation.accountId, now, invitation.createdAt, invitation.id],
  );
  return result.rows.length > 0;
}

/** Two invitations of one email made at once: the second breaks the one-open-invitation index. */
export const isOpenInvitationClash = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  (error as { code?: unknown }).code === '23505' &&
  String((error as { constraint?: unknown; message?: unknown }).constraint ?? (error as { message?: unknown }).message).includes('invitations_open_email');
