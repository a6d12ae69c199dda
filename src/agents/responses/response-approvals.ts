import { z } from 'zod';
import type { ConversationOwner } from '../../conversations/conversation-repository.ts';
import { JunctionError } from '../../core/errors.ts';
import type { Database, Queryable } from '../../store/database.ts';
import type { ApprovalDecisions } from '../agent-graph.ts';
import { claimPause, findRunByResponse, upsertPause } from '../durable/run-repository.ts';
import { type AnsweredPause, findPausesByApprovalRequests } from './approval-pause-repository.ts';
import type { ApprovalRequestItem, McpApprovalRequestItem, OutputItem } from './response-items.ts';
import type { CreateResponseRequest, InputItem } from './response-request-schema.ts';

/**
 * Human approval across two requests. A run that pauses on a LangGraph interrupt keeps
 * its checkpoints (thread id = its run id) and an `agent_runs` row in status
 * `requires_action` that ties the paused thread to the response showing the approval
 * requests. The next request answers every request — with a `junction:approval_response`
 * naming that response (`previous_response_id`), or with OpenAI's `mcp_approval_response`,
 * which may instead come inside the client's whole history (the Agents SDK's default):
 * then the pause is found by its request ids, and answers to pauses already resumed are
 * history. The thread resumes with the decisions exactly once (claiming the pause is one
 * conditional update). An answer to a pause closed before it was answered (cancelled, or
 * moved on from) is refused with `approval_closed` however it comes: its tool never runs.
 */

/** Why a paused response no longer waits for approvals, by its run's status. */
const PAUSE_CLOSED = new Map([
  ['cancelled', 'it was cancelled, so its approvals can no longer be answered'],
  ['superseded', 'the conversation moved on from it, and its calls were answered as not run'],
]);

const PauseSchema = z.object({ approvals: z.array(z.object({ id: z.string(), call_id: z.string(), name: z.string() })) });

export type ApprovalResume = {
  threadId: string;
  decisions: ApprovalDecisions;
  /** The response that asked: the one the resumed run continues. */
  responseId: string;
  /** The answers came inside a resent history, whose other items the paused thread already holds. */
  inHistory: boolean;
};

type Answer = { item: Extract<InputItem, { type: 'junction:approval_response' | 'mcp_approval_response' }>; index: number };

/** The resume a request asks for, checked against the pause it names; undefined for an ordinary request. */
export async function approvalResume(db: Database, owner: ConversationOwner, body: CreateResponseRequest): Promise<ApprovalResume | undefined> {
  const answers = body.input.flatMap((item, index): Answer[] => (item.type === 'junction:approval_response' || item.type === 'mcp_approval_response' ? [{ item, index }] : []));
  if (answers.length === 0) return undefined;
  const pauses = await findPausesByApprovalRequests(
    db,
    owner,
    answers.map(({ item }) => item.approval_request_id),
  );
  refuseClosedPauses(pauses, answers);
  const inHistory = !body.previous_response_id && answers.every(({ item }) => item.type === 'mcp_approval_response');
  if (inHistory) return resumeFromHistory(pauses, body, answers);
  if (answers.length !== body.input.length) {
    throw new JunctionError('invalid_request', 'Approval responses resume a paused run and cannot be sent together with other input items.', { param: 'input' });
  }
  if (!body.previous_response_id)
    throw new JunctionError('invalid_request', 'An approval response needs previous_response_id: the response that asked for the approval.', { param: 'previous_response_id' });
  if (body.background) throw new JunctionError('invalid_request', 'Approval responses cannot resume a run in the background; send them without background: true.', { param: 'background' });
  const pause = await findRunByResponse(db, owner, body.previous_response_id);
  const closed = pause && PauseSchema.safeParse(pause.request).success ? PAUSE_CLOSED.get(pause.status) : undefined;
  if (closed) throw new JunctionError('approval_closed', `Response '${body.previous_response_id}' no longer waits for approval: ${closed}.`, { param: 'previous_response_id' });
  if (pause?.status !== 'requires_action') {
    throw new JunctionError('invalid_request', `Response '${body.previous_response_id}' has no approval waiting (none was asked, or it was answered already).`, {
      param: 'previous_response_id',
    });
  }
  return {
    threadId: pause.id,
    responseId: body.previous_response_id,
    decisions: decide(PauseSchema.parse(pause.request).approvals, answers, `response '${body.previous_response_id}'`),
    inHistory: false,
  };
}

/** Refuses answers to pauses closed before they were answered, wherever in the input they are. */
function refuseClosedPauses(pauses: ReadonlyMap<string, AnsweredPause>, answers: Answer[]): void {
  for (const { item, index } of answers) {
    const pause = pauses.get(item.approval_request_id);
    const closed = pause && PAUSE_CLOSED.get(pause.status);
    if (closed) {
      throw new JunctionError('approval_closed', `Approval request '${item.approval_request_id}' of response '${pause.response_id}' can no longer be answered: ${closed}.`, {
        param: `input.${index}.approval_request_id`,
      });
    }
  }
}

function resumeFromHistory(pauses: ReadonlyMap<string, AnsweredPause>, body: CreateResponseRequest, answers: Answer[]): ApprovalResume | undefined {
  for (const { item } of answers.toReversed()) {
    const pause = pauses.get(item.approval_request_id);
    if (pause?.status !== 'requires_action') continue;
    if (body.background) throw new JunctionError('invalid_request', 'Approval responses cannot resume a run in the background; send them without background: true.', { param: 'background' });
    const approvals = PauseSchema.parse(pause.request).approvals;
    const ids = new Set(approvals.map((approval) => approval.id));
    return {
      threadId: pause.id,
      responseId: pause.response_id,
      decisions: decide(
        approvals,
        answers.filter((answer) => ids.has(answer.item.approval_request_id)),
        `response '${pause.response_id}'`,
      ),
      inHistory: true,
    };
  }
  return undefined;
}

function decide(approvals: z.infer<typeof PauseSchema>['approvals'], answers: Answer[], where: string): ApprovalDecisions {
  const decisions: ApprovalDecisions = {};
  for (const { item, index } of answers) {
    const request = approvals.find((approval) => approval.id === item.approval_request_id);
    if (!request) throw new JunctionError('invalid_request', `No approval request '${item.approval_request_id}' in ${where}.`, { param: `input.${index}.approval_request_id` });
    decisions[request.call_id] = { approve: item.approve, ...(item.reason && { reason: item.reason }) };
  }
  const unanswered = approvals.filter((approval) => !(approval.call_id in decisions));
  if (unanswered.length > 0) {
    throw new JunctionError('invalid_request', `Answer every approval request of the response; missing: ${unanswered.map((approval) => approval.id).join(', ')}.`, { param: 'input' });
  }
  return decisions;
}

export { claimPause };

type WaitingItem = ApprovalRequestItem | McpApprovalRequestItem;

export const approvalItems = (output: readonly OutputItem[]): WaitingItem[] =>
  output.filter((item): item is WaitingItem => item.type === 'junction:approval_request' || item.type === 'mcp_approval_request');

/** Records (or moves to a newer response) the pause of a thread, in the transaction that stores the response. */
export async function recordPause(tx: Queryable, pause: { threadId: string; responseId: string; owner: ConversationOwner; agentId: string; items: WaitingItem[] }): Promise<void> {
  const request = { approvals: pause.items.map((item) => ({ id: item.id, call_id: item.call_id, name: item.name })) };
  await upsertPause(tx, { threadId: pause.threadId, responseId: pause.responseId, accountId: pause.owner.accountId, keyId: pause.owner.keyId, agentId: pause.agentId, request });
}
