import type { AssistantPart, ModelMessage } from '../core/model-types.ts';
import { toolCallItemId } from './conversation-items.ts';
import type { StoredMessage } from './conversation-repository.ts';

/**
 * A node's message less its deleted items, or null when nothing of it is left to show a
 * model. An assistant's reasoning has no item of its own: it stays while a text or a tool
 * call of the same step does, since providers tie it to them.
 */
export function visibleMessage(node: StoredMessage): ModelMessage | null {
  if (node.deletedAt) return null;
  const hidden = node.hiddenItems ?? [];
  if (hidden.length === 0) return node.message;
  const message = node.message;
  if (message.role !== 'assistant') return hidden.includes(node.id) ? null : message;
  const content = message.content.filter((part, index) => isShown(part, index, node.id, hidden));
  return content.some((part) => part.type !== 'reasoning') ? { ...message, content } : null;
}

function isShown(part: AssistantPart, index: number, nodeId: string, hidden: readonly string[]): boolean {
  if (part.type === 'tool-call') return !hidden.includes(toolCallItemId(nodeId, index));
  if (part.type === 'text') return !hidden.includes(nodeId);
  return true;
}

/**
 * What a model sees of a path once items are deleted: the visible messages, less the tool
 * results whose call was deleted, since providers refuse a result that answers no call.
 */
export function visibleHistory(path: readonly StoredMessage[]): ModelMessage[] {
  // A path with nothing deleted is sent exactly as stored.
  if (!path.some((node) => node.deletedAt || (node.hiddenItems?.length ?? 0) > 0)) return path.map((node) => node.message);
  const history: ModelMessage[] = [];
  const calls = new Set<string>();
  for (const node of path) {
    const message = visibleMessage(node);
    if (message === null) continue;
    if (message.role === 'tool' && !calls.has(message.toolCallId)) continue;
    if (message.role === 'assistant') for (const part of message.content) if (part.type === 'tool-call') calls.add(part.id);
    history.push(message);
  }
  return history;
}
