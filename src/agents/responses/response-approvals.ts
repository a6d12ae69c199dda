import { z } from 'zod';
import type { ConversationOwner } from '../../conversations/conversation-repository.ts';
import { JunctionError } from '../../core/errors.ts';
import type { Database, Queryable } from '../../store/database.ts';
import type { ApprovalDecisions } from '../agent-graph.ts';
import { claimPause, findRunByResponse, upsertPause } from '../durable/run-repository.ts';
import type { ApprovalRequestItem, OutputItem } from './response-items.ts';
import type { CreateResponseRequest } from './response-request-schema.ts';

/**
 * Human approval across two requests. A run that pauses on a LangGraph interrupt keeps
 * its checkpoints (thread id = its run id) and an `agent_runs` row in status
 * `requires_action` that ties the paused thread to the response showing the approval
 * requests. The next request names that response (`previous_response_id`) and answers
 * every request with a `junction:approval_response`; the thread resumes with the
 * decisions, exactly once (claiming the pause is one conditional update).
 */

const PauseSchema = z.object({ approvals: z.array(z.object({ id: z.string(), call_id: z.string(), name: z.string() })) });

export type ApprovalResume = { threadId: string; decisions: ApprovalDecisions };

/** The resume a request asks for, checked against the pause it names; undefined for an ordinary request. */
export async function approvalResume(db: Database, owner: ConversationOwner, body: CreateResponseRequest): Promise<ApprovalResume | undefined> {
  const answers = body.input.flatMap((item, index) => (item.type === 'junction:approval_response' ? [{ item, index }] : []));
  if (answers.length === 0) return undefined;
  if (answers.length !== body.input.length) {
    throw new JunctionError('invalid_request', 'Approval responses resume a paused run and cannot be sent together with other input items.', { param: 'input' });
  }
  if (!body.previous_response_id) throw new JunctionError('invalid_request', 'An approval response needs previous_response_id: the response that asked for the approval.', { param: 'previous_response_id' });
  if (body.background) throw new JunctionError('invalid_request', 'Approval responses cannot resume a run in the background; send them without background: true.', { param: 'background' });
  const pause = await findRunByResponse(db, owner, body.previous_response_id);
  if (!pause || pause.status !== 'requires_action') {
    const why = pause?.status === 'cancelled' ? 'it was cancelled, so its approvals can no longer be answered' : 'none was asked, or it was answered already';
    throw new JunctionError('invalid_request', `Response '${body.previous_response_id}' has no approval waiting (${why}).`, { param: 'previous_response_id' });
  }
  const { approvals } = PauseSchema.parse(pause.request);
  const decisions: ApprovalDecisions = {};
  for (const { item, index } of answers) {
    if (item.type !== 'junction:approval_response') continue;
    const request = approvals.find((approval) => approval.id === item.approval_request_id);
    if (!request) throw new JunctionError('invalid_request', `No approval request '${item.approval_request_id}' in response '${body.previous_response_id}'.`, { param: `input.${index}.approval_request_id` });
    decisions[request.call_id] = { approve: item.approve, ...(item.reason && { reason: item.reason }) };
  }
  const unanswered = approvals.filter((approval) => !(approval.call_id in decisions));
  if (unanswered.length > 0) {
    throw new JunctionError('invalid_request', `Answer every approval request of the response; missing: ${unanswered.map((approval) => approval.id).join(', ')}.`, { param: 'input' });
  }
  return { threadId: pause.id, decisions };
}

export { claimPause };

export const approvalItems = (output: readonly OutputItem[]): ApprovalRequestItem[] =>
  output.filter((item): item is ApprovalRequestItem => item.type === 'junction:approval_request');

/** Records (or moves to a newer response) the pause of a thread, in the transaction that stores the response. */
export async function recordPause(tx: Queryable, pause: { threadId: string; responseId: string; owner: ConversationOwner; agentId: string; items: ApprovalRequestItem[] }): Promise<void> {
  const request = { approvals: pause.items.map((item) => ({ id: item.id, call_id: item.call_id, name: item.name })) };
  await upsertPause(tx, { threadId: pause.threadId, responseId: pause.responseId, accountId: pause.owner.accountId, keyId: pause.owner.keyId, agentId: pause.agentId, request });
}
