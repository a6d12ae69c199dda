import type { StoredMessage } from '../conversations/conversation-repository.ts';
import { visibleMessage } from '../conversations/visible-history.ts';
import { microsToUsd } from '../core/money.ts';
import type { ConversationNode, ConversationSummary, RunUsage } from './contract/conversations.ts';
import type { ConversationHeader, RunUsageTotals } from './conversations-repository.ts';

/** A conversation as the console lists it: who made it (a person's playground, or a key by name), when, and its first message. */
export const toSummary = (header: ConversationHeader): ConversationSummary => ({
  id: header.id,
  agent_id: header.agentId,
  key: {
    id: header.keyId,
    name: header.keyName,
    kind: header.keyKind,
    source: header.playgroundUser === null ? 'api' : 'playground',
    caller: header.playgroundUser === null ? header.keyName : `${header.playgroundUser} (playground)`,
  },
  title: header.title,
  message_count: header.messageCount,
  created_at: header.createdAt.toISOString(),
  updated_at: header.updatedAt.toISOString(),
});

/** The run id the runtime recorded on the node, if it did. */
export const recordedRunId = (node: StoredMessage): string | null => {
  const runId = node.metadata['run_id'];
  return typeof runId === 'string' ? runId : null;
};

/** One tree node in the console's shape: text, reasoning, tool calls and results drawn without knowing any wire format. */
export function toNode(node: StoredMessage, runId: string | null): ConversationNode {
  const base = {
    id: node.id,
    parent_id: node.parentId,
    role: node.message.role,
    attachments: [] as string[],
    reasoning: null as string | null,
    tool_calls: [] as ConversationNode['tool_calls'],
    tool_call_id: null as string | null,
    tool_name: null as string | null,
    is_error: false,
    deleted: false,
    agent_id: node.agentId,
    model: node.model,
    response_id: node.responseId,
    run_id: runId,
    usage: node.usage && { input_tokens: node.usage.inputTokens, output_tokens: node.usage.outputTokens, cost_usd: node.costMicros === null ? null : microsToUsd(Number(node.costMicros)) },
    created_at: node.createdAt.toISOString(),
  };
  // Items deleted through the Conversations API are gone for the console too: what is left, as a model would see it.
  const message = visibleMessage(node);
  if (message === null) return { ...base, text: '', deleted: true };
  switch (message.role) {
    case 'system':
      return { ...base, text: message.content };
    case 'tool':
      return { ...base, text: message.content, tool_call_id: message.toolCallId, tool_name: message.name ?? null, is_error: message.isError ?? false };
    case 'user':
      return {
        ...base,
        text: message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n'),
        attachments: message.content.flatMap((part) => (part.type === 'text' ? [] : [part.type === 'file' ? (part.filename ?? 'file') : 'image'])),
      };
    case 'assistant': {
      const reasoning = message.content.flatMap((part) => (part.type === 'reasoning' && part.text ? [part.text] : []));
      return {
        ...base,
        text: message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''),
        reasoning: reasoning.length > 0 ? reasoning.join('\n') : null,
        tool_calls: message.content.flatMap((part) => (part.type === 'tool-call' ? [{ id: part.id, name: part.name, arguments: part.arguments }] : [])),
      };
    }
  }
}

export const toRunUsage = (totals: RunUsageTotals): RunUsage => ({
  run_id: totals.runId,
  calls: totals.calls,
  input_tokens: totals.inputTokens,
  output_tokens: totals.outputTokens,
  cost_usd: microsToUsd(totals.costMicros),
});
