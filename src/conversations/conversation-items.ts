import type { ModelMessage } from '../core/model-types.ts';
import type { StoredMessage } from './conversation-repository.ts';

/** One item of OpenAI's Conversations API (`GET /conversations/{id}/items`). */
export type ConversationItem = Record<string, unknown> & { id: string; type: string };

/** The id of an assistant node's tool call as an item: derived from the node's, so it stays stable. */
export const toolCallItemId = (nodeId: string, partIndex: number): string => `${nodeId}_call_${partIndex}`;

/** The node's items that are not deleted (`DELETE /conversations/{id}/items/{item_id}` hides them). */
export function conversationItems(node: StoredMessage): ConversationItem[] {
  if (node.deletedAt) return [];
  const hidden = node.hiddenItems ?? [];
  const items = everyConversationItem(node);
  return hidden.length === 0 ? items : items.filter((item) => !hidden.includes(item.id));
}

/**
 * A tree node as OpenAI conversation items, deleted ones included: a message's text as one
 * `message` item; an assistant's tool calls as `function_call` items; a tool result as
 * `function_call_output`. Reasoning is not listed.
 */
export function everyConversationItem(node: StoredMessage): ConversationItem[] {
  const message: ModelMessage = node.message;
  switch (message.role) {
    case 'system':
      return [{ id: node.id, type: 'message', role: 'system', status: 'completed', content: [{ type: 'input_text', text: message.content }] }];
    case 'user': {
      const content = message.content.map((part) => (part.type === 'text' ? { type: 'input_text', text: part.text } : { type: part.type === 'image' ? 'input_image' : 'input_file' }));
      return [{ id: node.id, type: 'message', role: 'user', status: 'completed', content }];
    }
    case 'assistant': {
      const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      const calls = message.content.flatMap((part, index) =>
        part.type === 'tool-call' ? [{ id: toolCallItemId(node.id, index), type: 'function_call', status: 'completed', call_id: part.id, name: part.name, arguments: part.arguments }] : [],
      );
      const textItem = text === '' ? [] : [{ id: node.id, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }];
      return [...textItem, ...calls];
    }
    case 'tool':
      return [{ id: node.id, type: 'function_call_output', status: 'completed', call_id: message.toolCallId, output: message.content }];
  }
}
