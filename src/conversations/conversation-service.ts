import { JunctionError } from '../core/errors.ts';
import { conversationItems, everyConversationItem } from './conversation-items.ts';
import { NO_AGENT_YET } from './created-conversation.ts';
import type { AssistantMessage, ModelMessage, UserMessage } from '../core/model-types.ts';
import { microsToUsd } from '../core/money.ts';
import type { Database, Queryable } from '../store/database.ts';
import {
  appendMessages,
  type Conversation,
  type ConversationOwner,
  deleteConversation,
  findConversation,
  findLatestMessage,
  findOwnedMessage,
  findPath,
  hideMessageItem,
  listConversations,
  setConversationTitle,
  listMessages,
  type NewMessage,
  newConversationId,
  type StatementPart,
  type StoredMessage,
} from './conversation-repository.ts';
import { findResponseForContinuation, type StoredResponse } from './response-repository.ts';
import { visibleHistory, visibleMessage } from './visible-history.ts';

/**
 * The conversation-tree rules the Agents API routes and the Responses runtime share.
 *
 * Ownership: a conversation belongs to the account AND the agent key that made it.
 * Another key of the same account gets the same 404 as a stranger: agent keys are
 * handed to separate apps/end users, and one of them must not read another's chats.
 * Unknown and foreign ids are indistinguishable (404), so ids leak nothing.
 */

export type ContinuationRequest = ConversationOwner & {
  agentId: string;
  conversationId?: string | null;
  parentMessageId?: string | null;
};

export type Continuation = {
  /** The stored conversation, or (isNew) the one `recordTurn` will create with this id. */
  conversation: Conversation;
  isNew: boolean;
  /** Where the new turn attaches; null only for a new conversation. */
  parentMessageId: string | null;
  /** Root → parent, with ids and usage. */
  path: StoredMessage[];
  /** Exactly what the model sees before the new input: the path's messages. */
  history: ModelMessage[];
};

/**
 * No conversation id: a new conversation. Conversation id alone: continue from its
 * latest message. With a parent message id: continue from that message (a branch
 * when it already has children). A parent id without a conversation id is refused
 * rather than guessed, so a client bug cannot silently fork some other conversation.
 */
export async function resolveContinuation(db: Queryable, request: ContinuationRequest): Promise<Continuation> {
  const owner = { accountId: request.accountId, keyId: request.keyId };
  const conversationId = request.conversationId ?? null;
  const parentMessageId = request.parentMessageId ?? null;
  if (conversationId === null) {
    if (parentMessageId === null) return newConversation(owner, request.agentId);
    throw new JunctionError('invalid_request', "'parent_message_id' requires 'conversation_id'.", { param: 'parent_message_id' });
  }
  const conversation = await findConversation(db, owner, conversationId);
  if (!conversation) throw conversationNotFound(conversationId);
  let parentId: string | null;
  if (parentMessageId === null) {
    parentId = (await findLatestMessage(db, conversation.id))?.id ?? null;
  } else {
    const owned = await findOwnedMessage(db, owner, parentMessageId);
    if (!owned) {
      throw new JunctionError('not_found', `No message found with id '${parentMessageId}'.`, { param: 'parent_message_id' });
    }
    if (owned.conversationId !== conversation.id) {
      const message = `Message '${parentMessageId}' belongs to another conversation than '${conversation.id}'.`;
      throw new JunctionError('invalid_request', message, { param: 'parent_message_id' });
    }
    parentId = owned.id;
  }
  const path = parentId === null ? [] : await findPath(db, conversation.id, parentId);
  return { conversation, isNew: false, parentMessageId: parentId, path, history: visibleHistory(path) };
}

/**
 * Responses share the tree: a response's parent is the last message its
 * `previous_response_id` produced; without one, a new conversation starts.
 */
export async function resolveResponseContinuation(
  db: Queryable,
  request: ConversationOwner & { agentId: string; previousResponseId?: string | null },
): Promise<Continuation & { previousResponse: StoredResponse | null }> {
  const owner = { accountId: request.accountId, keyId: request.keyId };
  const previousResponseId = request.previousResponseId ?? null;
  if (previousResponseId === null) return { ...newConversation(owner, request.agentId), previousResponse: null };
  const previous = await findResponseForContinuation(db, owner, previousResponseId);
  if (previous.conversationId === null || previous.lastMessageId === null) {
    const message = `Previous response '${previous.id}' (${previous.status}) produced no messages to continue from.`;
    throw new JunctionError('invalid_request', message, { param: 'previous_response_id' });
  }
  const continuation = await resolveContinuation(db, {
    ...owner,
    agentId: request.agentId,
    conversationId: previous.conversationId,
    parentMessageId: previous.lastMessageId,
  });
  return { ...continuation, previousResponse: previous };
}

/** A new conversation's continuation (unsaved until a turn is recorded). */
export function newConversation(owner: ConversationOwner, agentId: string): Continuation {
  const now = new Date();
  return {
    conversation: { id: newConversationId(), ...owner, agentId, title: null, metadata: {}, createdAt: now, updatedAt: now },
    isNew: true,
    parentMessageId: null,
    path: [],
    history: [],
  };
}

export type RecordedTurn = {
  conversation: Conversation;
  /** The new nodes, in chain order. */
  messages: StoredMessage[];
  userMessageId: string | null;
  /** The final assistant message: the `message_id` clients continue from. */
  assistantMessageId: string | null;
  lastMessageId: string;
};

export type RecordTurnInput = {
  continuation: Continuation;
  /** Agent that ran this turn (defaults to the conversation's). */
  agentId?: string;
  /** The turn's messages in order (user → assistant tool call → tool result → assistant answer). */
  messages: readonly NewMessage[];
  /** Runs in the same transaction after the messages are written (e.g. saving the response row). */
  withinTransaction?: (tx: Queryable, turn: RecordedTurn) => Promise<void>;
  /** Another write in the messages' own statement (no transaction): one round trip for the whole turn. */
  alongside?: StatementPart;
};

/**
 * Creates the conversation when new and appends the turn as one chain: one statement
 * (atomic on its own, `alongside` included), inside a transaction only when
 * `withinTransaction` adds writes.
 */
export async function recordTurn(db: Database, input: RecordTurnInput): Promise<RecordedTurn> {
  const { continuation } = input;
  if (input.messages.length === 0) throw new Error('recordTurn needs at least one message');
  const owner = { accountId: continuation.conversation.accountId, keyId: continuation.conversation.keyId };
  const agentId = input.agentId ?? continuation.conversation.agentId;
  const conversationId = continuation.conversation.id;
  const title = continuation.isNew ? conversationTitle(input.messages.map((item) => item.message)) : continuation.conversation.title;
  const write = async (queryable: Queryable): Promise<RecordedTurn> => {
    const chain = {
      conversationId,
      parentId: continuation.parentMessageId,
      agentId,
      messages: input.messages,
      ...(continuation.isNew && { create: { owner, agentId, title } }),
      ...(input.alongside && { alongside: input.alongside }),
    };
    const appended = await appendMessages(queryable, chain).catch((error: unknown) => {
      // The conversation (and the parent with it) was deleted while the turn ran.
      throw isForeignKeyViolation(error) ? conversationNotFound(conversationId) : error;
    });
    const { messages, conversationUpdatedAt } = appended;
    const last = messages[messages.length - 1];
    if (!conversationUpdatedAt || !last) throw conversationNotFound(conversationId);
    const conversation: Conversation = continuation.isNew
      ? { ...continuation.conversation, agentId, title, createdAt: appended.conversationCreatedAt ?? conversationUpdatedAt, updatedAt: conversationUpdatedAt }
      : { ...continuation.conversation, updatedAt: conversationUpdatedAt };
    return {
      conversation,
      messages,
      userMessageId: messages.find((node) => node.message.role === 'user')?.id ?? null,
      assistantMessageId: messages.findLast((node) => node.message.role === 'assistant')?.id ?? null,
      lastMessageId: last.id,
    };
  };
  const { withinTransaction } = input;
  if (!withinTransaction) return write(db);
  return db.transaction(async (tx) => {
    const turn = await write(tx);
    await withinTransaction(tx, turn);
    return turn;
  });
}

const isForeignKeyViolation = (error: unknown): boolean => typeof error === 'object' && error !== null && 'code' in error && error.code === '23503';

const conversationNotFound = (id: string) => new JunctionError('not_found', `No conversation found with id '${id}'.`, { param: 'conversation_id' });

/** The first user text, whitespace collapsed, cut to 80 characters. */
export function conversationTitle(messages: readonly ModelMessage[]): string | null {
  const user = messages.find((message): message is UserMessage => message.role === 'user');
  const text = user?.content
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return null;
  const characters = [...text]; // code points, so an emoji is never cut in half
  return characters.length <= 80 ? text : `${characters.slice(0, 79).join('')}…`;
}

export async function getConversation(db: Queryable, owner: ConversationOwner, id: string): Promise<Conversation> {
  const conversation = await findConversation(db, owner, id);
  if (!conversation) throw conversationNotFound(id);
  return conversation;
}

export async function getConversationTree(db: Queryable, owner: ConversationOwner, id: string): Promise<{ conversation: Conversation; messages: StoredMessage[] }> {
  const conversation = await getConversation(db, owner, id);
  return { conversation, messages: await listMessages(db, conversation.id) };
}

/** Newest first; an `after` cursor the owner cannot see is a 400 rather than an empty page. */
export async function pageConversations(db: Queryable, owner: ConversationOwner, page: { limit?: number; after?: string | null } = {}): Promise<{ conversations: Conversation[]; hasMore: boolean }> {
  const limit = Math.min(Math.max(Math.trunc(page.limit ?? 20), 1), 100);
  if (page.after && !(await findConversation(db, owner, page.after))) {
    throw new JunctionError('invalid_request', `Unknown cursor '${page.after}'.`, { param: 'after' });
  }
  return listConversations(db, owner, { limit, after: page.after ?? null });
}

/**
 * `DELETE /conversations/{id}/items/{item_id}`: hides an item of the conversation's current
 * line (the items OpenAI's list shows); a deleted or unknown item is a 404.
 */
export async function removeConversationItem(db: Queryable, owner: ConversationOwner, conversationId: string, itemId: string): Promise<Conversation> {
  const conversation = await getConversation(db, owner, conversationId);
  const latest = await findLatestMessage(db, conversation.id);
  const line = latest ? await findPath(db, conversation.id, latest.id) : [];
  const node = line.find((candidate) => conversationItems(candidate).some((item) => item.id === itemId));
  const nodeItems = node ? everyConversationItem(node).map((item) => item.id) : [];
  if (!node || !(await hideMessageItem(db, node, itemId, nodeItems))) throw new JunctionError('not_found', `No item '${itemId}' in conversation '${conversationId}'.`);
  // A title taken from the deleted text would keep showing it: it is taken again from what is left.
  if (node.message.role === 'user' && itemId === node.id && conversation.title !== null && conversation.title === conversationTitle([node.message])) {
    const remaining = line.filter((candidate) => candidate.id !== node.id).flatMap((candidate) => visibleMessage(candidate) ?? []);
    const title = conversationTitle(remaining);
    await setConversationTitle(db, conversation.id, title);
    return { ...conversation, title };
  }
  return conversation;
}

export async function removeConversation(db: Queryable, owner: ConversationOwner, id: string): Promise<void> {
  if (!(await deleteConversation(db, owner, id))) throw conversationNotFound(id);
}

const unixSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

export function toConversationView(conversation: Conversation) {
  return {
    id: conversation.id,
    object: 'conversation' as const,
    agent: conversation.agentId === NO_AGENT_YET ? null : conversation.agentId,
    title: conversation.title,
    metadata: conversation.metadata,
    created_at: unixSeconds(conversation.createdAt),
    updated_at: unixSeconds(conversation.updatedAt),
  };
}

/** `GET /conversations/{id}`: every node with its parent id, in append order. */
export function toTreeView(conversation: Conversation, messages: readonly StoredMessage[]) {
  return {
    ...toConversationView(conversation),
    latest_message_id: messages[messages.length - 1]?.id ?? null,
    messages: messages.map(toMessageView),
  };
}

export function toMessageView(node: StoredMessage) {
  // The tree keeps a deleted node's place (its children hang from it) but shows none of its text.
  const visible = visibleMessage(node);
  return {
    id: node.id,
    object: 'conversation.message' as const,
    parent_id: node.parentId,
    ...(visible ? renderMessage(visible) : { role: node.message.role, content: null, deleted: true }),
    created_at: unixSeconds(node.createdAt),
    agent: node.agentId,
    model: node.model,
    response_id: node.responseId,
    usage: node.usage && {
      input_tokens: node.usage.inputTokens,
      output_tokens: node.usage.outputTokens,
      total_tokens: node.usage.inputTokens + node.usage.outputTokens,
      cost: node.costMicros === null ? null : microsToUsd(node.costMicros),
    },
  };
}

/** Canonical parts in a chat-completions-like shape, which clients already know how to show. */
function renderMessage(message: ModelMessage) {
  switch (message.role) {
    case 'system':
      return { role: message.role, content: message.content };
    case 'tool':
      return { role: message.role, content: message.content, tool_call_id: message.toolCallId, name: message.name ?? null };
    case 'user':
      return { role: message.role, content: renderUserContent(message) };
    case 'assistant':
      return { role: message.role, ...renderAssistant(message) };
  }
}

function renderUserContent(message: UserMessage) {
  const [only] = message.content;
  if (message.content.length === 1 && only?.type === 'text') return only.text;
  return message.content.map((part) => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image') {
      const url = 'url' in part ? part.url : `data:${part.mediaType};base64,${part.data}`;
      return { type: 'image_url', image_url: { url, ...(part.detail ? { detail: part.detail } : {}) } };
    }
    const file = 'url' in part ? { file_url: part.url } : { file_data: `data:${part.mediaType};base64,${part.data}` };
    return { type: 'file', file: { ...(part.filename ? { filename: part.filename } : {}), ...file } };
  });
}

function renderAssistant(message: AssistantMessage) {
  const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  const reasoning = message.content.flatMap((part) => (part.type === 'reasoning' && part.text ? [part.text] : []));
  const toolCalls = message.content.flatMap((part) => (part.type === 'tool-call' ? [{ id: part.id, type: 'function' as const, function: { name: part.name, arguments: part.arguments } }] : []));
  return {
    content: text.length > 0 ? text.join('') : null,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(reasoning.length > 0 ? { reasoning: reasoning.join('') } : {}),
  };
}
