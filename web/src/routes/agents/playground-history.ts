import type { ConversationDetail, ConversationNode } from '@contract/conversations.ts';
import { answerSteps } from './conversation-tree.ts';
import type { DrawnStep, RunSummary } from './response-stream.ts';

/**
 * One exchange: the user's message and the run that answered it. Exchanges form a
 * tree through `previous_response_id`: editing a message or regenerating an answer
 * adds a sibling under the same parent, and the path shown is what the model saw.
 */
export type Exchange = { key: string; parent: string | null; message: string; steps: DrawnStep[]; summary: RunSummary | undefined; error: string | undefined };

/** The answer under a user message: its descendants up to the next user message, along the newest line. */
function answerOf(children: ReadonlyMap<string, ConversationNode[]>, user: ConversationNode): ConversationNode[] {
  const answer: ConversationNode[] = [];
  for (let node = children.get(user.id)?.findLast((child) => child.role !== 'user'); node; node = children.get(node.id)?.findLast((child) => child.role !== 'user')) {
    answer.push(node);
  }
  return answer;
}

/** A stored playground conversation as the playground's exchanges, so a reload shows (and continues) where it was. */
export function exchangesOf(conversation: ConversationDetail): Exchange[] {
  const byId = new Map(conversation.messages.map((node) => [node.id, node]));
  const children = new Map<string, ConversationNode[]>();
  for (const node of conversation.messages) if (node.parent_id) children.set(node.parent_id, [...(children.get(node.parent_id) ?? []), node]);
  const runs = new Map(conversation.runs.map((run) => [run.run_id, run]));
  const openingUser = (node: ConversationNode | undefined): string | null => {
    for (let current = node; current; current = current.parent_id ? byId.get(current.parent_id) : undefined) if (current.role === 'user') return current.id;
    return null;
  };
  return conversation.messages
    .filter((node) => node.role === 'user')
    .map((user) => {
      const answer = answerOf(children, user);
      const last = answer.at(-1);
      const run = last?.run_id ? runs.get(last.run_id) : undefined;
      const recorded = answer.findLast((node) => node.usage !== null)?.usage;
      const steps: DrawnStep[] = answerSteps(answer).map((step) =>
        // A call answered within its turn ran on the server; a client's call is answered in the next turn.
        step.kind === 'tool' ? { kind: 'tool' as const, id: step.id, callId: step.id, name: step.name, arguments: step.arguments, result: step.result, server: step.result !== undefined } : step,
      );
      const responseId = last?.response_id ?? user.response_id;
      return {
        key: user.id,
        parent: openingUser(user.parent_id ? byId.get(user.parent_id) : undefined),
        message: user.text,
        steps,
        summary: responseId
          ? {
              responseId,
              status: answer.length > 0 ? 'completed' : 'no answer stored',
              inputTokens: run?.input_tokens ?? recorded?.input_tokens ?? 0,
              outputTokens: run?.output_tokens ?? recorded?.output_tokens ?? 0,
              costUsd: run?.cost_usd ?? recorded?.cost_usd ?? undefined,
              agentVersion: undefined,
            }
          : undefined,
        error: undefined,
      };
    });
}
