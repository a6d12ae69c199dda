import type { ConversationOwner } from '../../conversations/conversation-repository.ts';
import type { Queryable } from '../../store/database.ts';

export type WaitingPause = { id: string; response_id: string; request: unknown };

/**
 * The caller's run that waits on approval request `approvalRequestId`, for a client that
 * answers without naming the response (it resends its whole history instead).
 */
export async function findPauseByApprovalRequest(db: Queryable, owner: ConversationOwner, approvalRequestId: string): Promise<WaitingPause | undefined> {
  const result = await db.query<WaitingPause>(
    `SELECT id, response_id, request FROM agent_runs
      WHERE account_id = $1 AND key_id = $2 AND status = 'requires_action' AND request->'approvals' @> $3::jsonb`,
    [owner.accountId, owner.keyId, JSON.stringify([{ id: approvalRequestId }])],
  );
  return result.rows[0];
}
