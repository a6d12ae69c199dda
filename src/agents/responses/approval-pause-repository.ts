import type { ConversationOwner } from '../../conversations/conversation-repository.ts';
import type { Queryable } from '../../store/database.ts';

export type AnsweredPause = { id: string; response_id: string; status: string; request: unknown };

/**
 * The caller's runs whose pauses asked these approval requests, by request id: waiting
 * (`requires_action`), or closed before any answer (`cancelled`, `superseded`), so that an
 * answer arriving late is refused rather than taken for history. One read for a whole
 * resent history.
 */
export async function findPausesByApprovalRequests(db: Queryable, owner: ConversationOwner, approvalRequestIds: readonly string[]): Promise<Map<string, AnsweredPause>> {
  const result = await db.query<AnsweredPause & { approval_request_id: string }>(
    `SELECT r.id, r.response_id, r.status, r.request, a.value->>'id' AS approval_request_id
       FROM agent_runs r
       CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(r.request->'approvals') = 'array' THEN r.request->'approvals' ELSE '[]'::jsonb END) AS a(value)
      WHERE r.account_id = $1 AND r.key_id = $2 AND r.status IN ('requires_action', 'cancelled', 'superseded') AND a.value->>'id' = ANY($3::text[])`,
    [owner.accountId, owner.keyId, [...new Set(approvalRequestIds)]],
  );
  return new Map(result.rows.map(({ approval_request_id, ...pause }) => [approval_request_id, pause]));
}
