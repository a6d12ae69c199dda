import type { Queryable } from '../store/database.ts';
import type { Membership, Role } from './contract/session.ts';

export type User = { id: string; email: string; passwordHash: string | null; createdAt: Date };

type UserRow = { id: string; email: string; password_hash: string | null; created_at: Date };
const toUser = (row: UserRow): User => ({ id: row.id, email: row.email, passwordHash: row.password_hash, createdAt: row.created_at });

export async function countUsers(db: Queryable): Promise<number> {
  const result = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
  return result.rows[0]?.n ?? 0;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<User | undefined> {
  const result = await db.query<UserRow>('SELECT id, email, password_hash, created_at FROM users WHERE lower(email) = lower($1)', [email]);
  return result.rows[0] ? toUser(result.rows[0]) : undefined;
}

export async function findUser(db: Queryable, id: string): Promise<User | undefined> {
  const result = await db.query<UserRow>('SELECT id, email, password_hash, created_at FROM users WHERE id = $1', [id]);
  return result.rows[0] ? toUser(result.rows[0]) : undefined;
}

export async function lockUser(db: Queryable, id: string): Promise<User | undefined> {
  const result = await db.query<UserRow>('SELECT id, email, password_hash, created_at FROM users WHERE id = $1 FOR UPDATE', [id]);
  return result.rows[0] ? toUser(result.rows[0]) : undefined;
}

/** Creates the user, or returns the existing one with that email (adding a membership to an existing person). */
export async function upsertUser(db: Queryable, email: string, passwordHash: string | null): Promise<User> {
  const result = await db.query<UserRow>(
    `INSERT INTO users (email, password_hash) VALUES ($1, $2)
     ON CONFLICT ((lower(email))) DO UPDATE SET password_hash = COALESCE(EXCLUDED.password_hash, users.password_hash)
     RETURNING id, email, password_hash, created_at`,
    [email, passwordHash],
  );
  return toUser(result.rows[0] as UserRow);
}

export async function setPassword(db: Queryable, userId: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, passwordHash]);
}

export async function addMembership(db: Queryable, userId: string, accountId: string, role: Role): Promise<void> {
  await db.query(
    `INSERT INTO memberships (user_id, account_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (user_id, account_id) DO UPDATE SET role = EXCLUDED.role`,
    [userId, accountId, role],
  );
}

export async function membershipsOf(db: Queryable, userId: string): Promise<Membership[]> {
  const result = await db.query<{ account_id: string; account_name: string; role: Role; plan: string }>(
    `SELECT m.account_id, a.name AS account_name, m.role, a.plan FROM memberships m JOIN accounts a ON a.id = m.account_id
     WHERE m.user_id = $1 ORDER BY a.is_default DESC, a.created_at, a.id`,
    [userId],
  );
  return result.rows;
}

export async function roleIn(db: Queryable, userId: string, accountId: string): Promise<Role | undefined> {
  const result = await db.query<{ role: Role }>('SELECT role FROM memberships WHERE user_id = $1 AND account_id = $2', [userId, accountId]);
  return result.rows[0]?.role;
}

export type MemberRow = { user_id: string; email: string; role: Role; has_password: boolean; joined_at: Date };

export async function listMembers(db: Queryable, accountId: string): Promise<MemberRow[]> {
  const result = await db.query<MemberRow>(
    `SELECT u.id AS user_id, u.email, m.role, u.password_hash IS NOT NULL AS has_password, m.created_at AS joined_at
     FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.account_id = $1 ORDER BY m.created_at, u.email`,
    [accountId],
  );
  return result.rows;
}

export async function removeMembership(db: Queryable, userId: string, accountId: string): Promise<boolean> {
  const result = await db.query('DELETE FROM memberships WHERE user_id = $1 AND account_id = $2', [userId, accountId]);
  return result.rowCount > 0;
}

/** Creates a user with this email unless one exists; returns the new id, or undefined when the email is taken. */
export async function insertUserIfAbsent(db: Queryable, email: string, passwordHash: string): Promise<string | undefined> {
  const result = await db.query<{ id: string }>('INSERT INTO users (email, password_hash) VALUES ($1, $2) ON CONFLICT ((lower(email))) DO NOTHING RETURNING id', [email, passwordHash]);
  return result.rows[0]?.id;
}

/** The user with this email, locked until the transaction ends (so two links cannot both claim it). */
export async function lockUserByEmail(db: Queryable, email: string): Promise<User | undefined> {
  const result = await db.query<UserRow>('SELECT id, email, password_hash, created_at FROM users WHERE lower(email) = lower($1) FOR UPDATE', [email]);
  return result.rows[0] ? toUser(result.rows[0]) : undefined;
}

/** How many accounts other than `accountId` the user belongs to. */
export async function countMembershipsElsewhere(db: Queryable, userId: string, accountId: string): Promise<number> {
  const result = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM memberships WHERE user_id = $1 AND account_id <> $2', [userId, accountId]);
  return result.rows[0]?.n ?? 0;
}

/** Locks the account's owner rows, so two owners changing each other's roles at once cannot leave none. */
export async function lockOwners(db: Queryable, accountId: string): Promise<number> {
  const result = await db.query<{ user_id: string }>("SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'owner' FOR UPDATE", [accountId]);
  return result.rows.length;
}
