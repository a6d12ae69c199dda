import { z } from 'zod';
import type { ConversationOwner } from '../../conversations/conversation-repository.ts';
import { JunctionError } from '../../core/errors.ts';
import type { ModelMessage } from '../../core/model-types.ts';
import type { Database, Queryable } from '../../store/database.ts';
import type { ApprovalDecisions, ApprovalInterrupt } from '../agent-graph.ts';
import { findRunByResponse } from '../durable/run-repository.ts';
import { newItemId } from '../responses/response-items.ts';
import { recordPause } from '../responses/response-approvals.ts';

/**
 * Approvals on `/agents/v1/chat/completions`, in a shape chat clients already handle:
 * a paused run answers like a client tool call — the assistant message carries
 * `tool_calls` for the calls waiting for approval and `finish_reason: "tool_calls"`.
 * The client continues from that message (`parent_message_id` = the returned
 * `message_id`) with one `tool` message per call whose content is
 * `{"approve": true}` or `{"approve": false, "reason": "…"}`; the run resumes from its
 * checkpoint with those decisions (the pause is keyed by the assistant message id).
 */

const DecisionSchema = z.strictObject({ approve: z.boolean(), reason: z.string().max(10_000).optional() });
const PauseSchema = z.object({ approvals: z.array(z.object({ call_id: z.string() })) });

export type ChatApprovalResume = { threadId: string; decisions: ApprovalDecisions };

/** The resume a chat turn asks for, when its parent message is a paused run's; undefined otherwise. */
export async function chatApprovalResume(db: Database, owner: ConversationOwner, parentMessageId: string | null | undefined, input: readonly ModelMessage[]): Promise<ChatApprovalResume | undefined> {
  if (!parentMessageId) return undefined;
  const pause = await findRunByResponse(db, owner, parentMessageId);
  if (pause?.status === 'resumed') throw new JunctionError('invalid_request', 'The approvals of this message were answered already.', { param: 'parent_message_id' });
  if (pause?.status !== 'requires_action') return undefined;
  const { approvals } = PauseSchema.parse(pause.request);
  const decisions: ApprovalDecisions = {};
  input.forEach((message, index) => {
    if (message.role !== 'tool' || !approvals.some((approval) => approval.call_id === message.toolCallId)) {
      throw new JunctionError('invalid_request', 'This message waits for approvals: answer each waiting tool call with a tool message {"approve": true|false, "reason"?: "…"} and nothing else.', {
        param: `messages.${index}`,
      });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(message.content);
    } catch {
      parsed = undefined;
    }
    const decision = DecisionSchema.safeParse(parsed);
    if (!decision.success) throw new JunctionError('invalid_request', 'An approval answer is a JSON object {"approve": true|false, "reason"?: "…"}.', { param: `messages.${index}.content` });
    decisions[message.toolCallId] = { approve: decision.data.approve, ...(decision.data.reason && { reason: decision.data.reason }) };
  });
  const missing = approvals.filter((approval) => !(approval.call_id in decisions));
  if (missing.length > 0) throw new JunctionError('invalid_request', `Answer every waiting tool call; missing: ${missing.map((approval) => approval.call_id).join(', ')}.`, { param: 'messages' });
  return { threadId: pause.id, decisions };
}

/** Records the pause under the assistant message the client continues from. */
export async function recordChatPause(tx: Queryable, pause: { threadId: string; messageId: string; owner: ConversationOwner; agentId: string; calls: ApprovalInterrupt['calls'] }): Promise<void> {
  const items = pause.calls.map((call) => ({
    type: 'junction:approval_request' as const,
    id: newItemId.approvalRequest(),
    status: 'completed' as const,
    call_id: call.callId,
    name: call.name,
    arguments: call.arguments,
  }));
  await recordPause(tx, { threadId: pause.threadId, responseId: pause.messageId, owner: pause.owner, agentId: pause.agentId, items });
}
