import type { Queryable } from '../store/database.ts';

export type AuditAction = 'created' | 'saved' | 'published' | 'rolled_back' | 'staged' | 'promoted' | 'aborted' | 'deleted';
export type Actor = { userId: string; email: string };

export type AuditEntry = {
  action: AuditAction;
  version: number | null;
  previousVersion: number | null;
  share: number | null;
  actorEmail: string | null;
  createdAt: Date;
};

type AuditChange = { action: AuditAction; version?: number | null; previousVersion?: number | null; share?: number | null };

/** One line of a console agent's history, written in the transaction of the change it records. */
export async function recordAudit(tx: Queryable, accountId: string, agentId: string, actor: Actor, change: AuditChange): Promise<void> {
  await tx.query(
    `INSERT INTO console_agent_audit (account_id, agent_id, action, version, previous_version, share, actor_id, actor_email)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [accountId, agentId, change.action, change.version ?? null, change.previousVersion ?? null, change.share ?? null, actor.userId, actor.email],
  );
}

type AuditRow = { action: AuditAction; version: number | null; previous_version: number | null; share: number | null; actor_email: string | null; created_at: Date };

/** The account's history of one agent id, newest first (deleted agents' lines included). */
export async function listAudit(db: Queryable, accountId: string, agentId: string, limit = 200): Promise<AuditEntry[]> {
  const result = await db.query<AuditRow>(
    `SELECT action, version, previous_version, share, actor_email, created_at FROM console_agent_audit
     WHERE account_id = $1 AND agent_id = $2 ORDER BY id DESC LIMIT $3`,
    [accountId, agentId, limit],
  );
  return result.rows.map((row) => ({
    action: row.action,
    version: row.version,
    previousVersion: row.previous_version,
    share: row.share,
    actorEmail: row.actor_email,
    createdAt: row.created_at,
  }));
}
