import { type StoredMessage, findPath } from '../conversations/conversation-repository.ts';
import { visibleMessage } from '../conversations/visible-history.ts';
import type { ModelMessage } from '../core/model-types.ts';
import type { Queryable } from '../store/database.ts';
import type { CaseInput, CaseMessage, CaseSource } from './case-fields.ts';
import { itemTurnEnd, responseTurnEnd, runTurnEnd, type TurnEnd } from './run-turn-repository.ts';

/** What names the production turn: a response or a run, and optionally one conversation item in it. */
export type RunCaseRequest = { responseId?: string | undefined; runId?: string | undefined; conversationId?: string | undefined; itemId?: string | undefined };

export type RunCase = { input: CaseInput; reference: string | null; source: CaseSource };

/** Why no case could be made: nothing of the account by that name, or a turn without text to ask. */
export type RunCaseResult = { ok: true; value: RunCase } | { ok: false; reason: 'not_found' | 'no_input' };

/** A tool call's item id names the node that made it (conversation-items.ts). */
const nodeIdOf = (itemId: string): string => itemId.replace(/_call_\d+$/, '');

async function turnEnd(db: Queryable, accountId: string, request: RunCaseRequest): Promise<TurnEnd | undefined> {
  let named: TurnEnd | undefined;
  if (request.responseId) named = await responseTurnEnd(db, accountId, request.responseId);
  else if (request.runId) named = await runTurnEnd(db, accountId, request.runId);
  if (!request.itemId) return named;
  if ((request.responseId || request.runId) && !named) return undefined;
  const conversationId = named?.conversationId ?? request.conversationId ?? null;
  if (named && request.conversationId && request.conversationId !== named.conversationId) return undefined;
  return itemTurnEnd(db, accountId, nodeIdOf(request.itemId), conversationId);
}

const textOf = (message: ModelMessage): string => {
  if (message.role === 'system' || message.role === 'tool') return message.content;
  const texts = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  return texts.join(message.role === 'user' ? '\n' : '');
};

/** Text messages only: tool calls and results are the run's own work, which the agent redoes when the case runs. */
function caseMessages(nodes: readonly StoredMessage[]): CaseMessage[] {
  const messages: CaseMessage[] = [];
  for (const node of nodes) {
    const message = visibleMessage(node);
    if (!message || message.role === 'tool') continue;
    const content = textOf(message);
    if (content !== '') messages.push({ role: message.role, content });
  }
  return messages;
}

/**
 * Splits a path at its last user message: what came before and that message are the case's
 * input; the assistant's last text after it is the reference answer. A path that ends at a
 * user message gives a case without a reference.
 */
export function caseOfPath(path: readonly StoredMessage[]): { input: CaseInput; reference: string | null } | undefined {
  const lastUser = path.findLastIndex((node) => node.message.role === 'user' && visibleMessage(node) !== null);
  if (lastUser < 0) return undefined;
  const input = caseMessages(path.slice(0, lastUser + 1));
  const answer = caseMessages(path.slice(lastUser + 1)).findLast((message) => message.role === 'assistant');
  const first = input[0];
  if (!first || !input.some((message) => message.role === 'user')) return undefined;
  const single = input.length === 1 && first.role === 'user';
  return { input: single ? first.content : input, reference: answer?.content ?? null };
}

/** A dataset case from a production turn of the account: its input (and the conversation so far) and its answer as the reference. */
export async function caseFromRun(db: Queryable, accountId: string, request: RunCaseRequest): Promise<RunCaseResult> {
  const end = await turnEnd(db, accountId, request);
  if (!end) return { ok: false, reason: 'not_found' };
  const path = await findPath(db, end.conversationId, end.messageId);
  const taken = caseOfPath(path);
  if (!taken) return { ok: false, reason: 'no_input' };
  const runId = request.runId ?? end.runId;
  const responseId = request.responseId ?? end.responseId;
  const source: CaseSource = {
    ...(runId && { run_id: runId }),
    ...(responseId && { response_id: responseId }),
    conversation_id: end.conversationId,
    item_id: end.messageId,
  };
  return { ok: true, value: { ...taken, source } };
}
