import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  getConversation,
  getConversationTree,
  recordTurn,
  resolveContinuation,
  pageConversations,
  removeConversation,
  removeConversationItem,
  toConversationView,
  toTreeView,
} from '../../conversations/conversation-service.ts';
import { createEmptyConversation } from '../../conversations/created-conversation.ts';
import { createConversationWithItems } from '../../conversations/conversation-with-items.ts';
import { conversationItems } from '../../conversations/conversation-items.ts';
import { findLatestMessage, findPath } from '../../conversations/conversation-repository.ts';
import { JunctionError } from '../../core/errors.ts';
import type { ModelMessage } from '../../core/model-types.ts';
import type { Queryable } from '../../store/database.ts';
import { authenticatedKey } from '../../http/auth-hook.ts';
import { parseInput } from '../../http/parse-body.ts';
import { toRunInput } from '../responses/response-input.ts';
import { InputItemSchema } from '../responses/response-request-schema.ts';
import type { AgentsApiDeps } from './agents-api-deps.ts';

const ListQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20), after: z.string().optional() });
const ItemsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
  after: z.string().min(1).optional(),
  include: z.union([z.string(), z.array(z.string())]).optional(),
});
const AddItemsBody = z.strictObject({ items: z.array(InputItemSchema).min(1).max(20) });
const CreateBody = z.strictObject({
  metadata: z
    .record(z.string().max(64), z.string().max(512))
    .refine((entries) => Object.keys(entries).length <= 16, 'at most 16 keys')
    .nullish(),
  items: z.array(InputItemSchema).max(20).nullish(),
});

/** Conversations belong to the account and the key that made them: another key sees 404. */
export async function conversationsRoutes(app: FastifyInstance, deps: AgentsApiDeps): Promise<void> {
  const ownerOf = (request: Parameters<typeof authenticatedKey>[0]) => {
    const key = authenticatedKey(request);
    return { accountId: key.accountId, keyId: key.id };
  };

  app.get('/conversations', async (request) => {
    const query = parseInput(ListQuery, request.query, 'query string');
    const page = await pageConversations(deps.db, ownerOf(request), { limit: query.limit, after: query.after ?? null });
    const last = page.conversations.at(-1);
    return { object: 'list', data: page.conversations.map(toConversationView), has_more: page.hasMore, last_id: last?.id ?? null };
  });

  // OpenAI's Conversations API: a conversation for responses to join (`conversation: <id>`), with its first items if given.
  app.post('/conversations', { config: { bodyOptional: true } }, async (request) => {
    const body = parseInput(CreateBody, request.body ?? {});
    const metadata = body.metadata ?? {};
    const messages = body.items ? itemMessages(body.items, []) : [];
    const created = messages.length > 0 ? await createConversationWithItems(deps.db, ownerOf(request), metadata, messages) : await createEmptyConversation(deps.db, ownerOf(request), metadata);
    return { id: created.id, object: 'conversation', created_at: Math.floor(created.createdAt.getTime() / 1000), metadata };
  });

  app.get('/conversations/:id', async (request) => {
    const { id } = request.params as { id: string };
    const tree = await getConversationTree(deps.db, ownerOf(request), id);
    return toTreeView(tree.conversation, tree.messages);
  });

  // OpenAI's item list: the conversation's current line (root → latest message), paged like its lists.
  app.get('/conversations/:id/items', async (request) => {
    const { id } = request.params as { id: string };
    const query = parseInput(ItemsQuery, request.query, 'query string');
    const items = (await currentLine(deps.db, ownerOf(request), id)).flatMap(conversationItems);
    const ordered = query.order === 'asc' ? items : items.toReversed();
    const start = query.after === undefined ? 0 : ordered.findIndex((item) => item.id === query.after) + 1;
    if (query.after !== undefined && start === 0) throw new JunctionError('invalid_request', `No item '${query.after}' in conversation '${id}'.`, { param: 'after' });
    const page = ordered.slice(start, start + query.limit);
    return { object: 'list', data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: start + query.limit < ordered.length };
  });

  // OpenAI's item create: messages and tool results appended after the latest message, as a turn no agent ran.
  app.post('/conversations/:id/items', async (request) => {
    const { id } = request.params as { id: string };
    const body = parseInput(AddItemsBody, request.body);
    const owner = ownerOf(request);
    const conversation = await getConversation(deps.db, owner, id);
    const continuation = await resolveContinuation(deps.db, { ...owner, agentId: conversation.agentId, conversationId: conversation.id });
    const messages = itemMessages(body.items, continuation.history);
    if (messages.length === 0) throw new JunctionError('invalid_request', 'None of these items adds a message to the conversation.', { param: 'items' });
    const recorded = await recordTurn(deps.db, { continuation, messages: messages.map((message) => ({ message })) });
    const data = recorded.messages.flatMap(conversationItems);
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false };
  });

  app.get('/conversations/:id/items/:itemId', async (request) => {
    const { id, itemId } = request.params as { id: string; itemId: string };
    const item = (await currentLine(deps.db, ownerOf(request), id)).flatMap(conversationItems).find((candidate) => candidate.id === itemId);
    if (!item) throw new JunctionError('not_found', `No item '${itemId}' in conversation '${id}'.`);
    return item;
  });

  // OpenAI's item delete answers the conversation; the item is hidden, its node keeps its place in the tree.
  app.delete('/conversations/:id/items/:itemId', async (request) => {
    const { id, itemId } = request.params as { id: string; itemId: string };
    return toConversationView(await removeConversationItem(deps.db, ownerOf(request), id, itemId));
  });

  app.delete('/conversations/:id', async (request) => {
    const { id } = request.params as { id: string };
    await removeConversation(deps.db, ownerOf(request), id);
    return { id, object: 'conversation.deleted', deleted: true };
  });
}

/** Items added to a conversation as messages; system and developer messages belong to one request, not to the conversation. */
function itemMessages(items: z.infer<typeof AddItemsBody>['items'], history: ModelMessage[]): ModelMessage[] {
  const turn = toRunInput(items, { history, references: new Map() });
  if (turn.instructions.length > 0) throw new JunctionError('invalid_request', 'System and developer messages apply to one request: send them as its instructions.', { param: 'items' });
  return turn.messages;
}

async function currentLine(db: Queryable, owner: { accountId: string; keyId: string }, id: string) {
  const conversation = await getConversation(db, owner, id);
  const latest = await findLatestMessage(db, conversation.id);
  return latest ? findPath(db, conversation.id, latest.id) : [];
}
