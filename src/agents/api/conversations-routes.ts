import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { getConversationTree, pageConversations, removeConversation, toConversationView, toTreeView } from '../../conversations/conversation-service.ts';
import { createEmptyConversation } from '../../conversations/created-conversation.ts';
import { authenticatedKey } from '../../http/auth-hook.ts';
import { parseInput } from '../../http/parse-body.ts';
import type { AgentsApiDeps } from './agents-api-deps.ts';

const ListQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20), after: z.string().optional() });
const CreateBody = z.strictObject({
  metadata: z
    .record(z.string().max(64), z.string().max(512))
    .refine((entries) => Object.keys(entries).length <= 16, 'at most 16 keys')
    .nullish(),
  items: z.array(z.unknown()).max(0, 'initial items are not supported: send them as the input of the first response').nullish(),
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

  // OpenAI's Conversations API: an empty conversation for responses to join (`conversation: <id>`).
  app.post('/conversations', { config: { bodyOptional: true } }, async (request) => {
    const body = parseInput(CreateBody, request.body ?? {});
    const metadata = body.metadata ?? {};
    const created = await createEmptyConversation(deps.db, ownerOf(request), metadata);
    return { id: created.id, object: 'conversation', created_at: Math.floor(created.createdAt.getTime() / 1000), metadata };
  });

  app.get('/conversations/:id', async (request) => {
    const { id } = request.params as { id: string };
    const tree = await getConversationTree(deps.db, ownerOf(request), id);
    return toTreeView(tree.conversation, tree.messages);
  });

  app.delete('/conversations/:id', async (request) => {
    const { id } = request.params as { id: string };
    await removeConversation(deps.db, ownerOf(request), id);
    return { id, object: 'conversation.deleted', deleted: true };
  });
}
