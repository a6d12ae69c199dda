import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { getConversationTree, pageConversations, removeConversation, toConversationView, toTreeView } from '../../conversations/conversation-service.ts';
import { authenticatedKey } from '../../http/auth-hook.ts';
import { parseInput } from '../../http/parse-body.ts';
import type { AgentsApiDeps } from './agents-api-deps.ts';

const ListQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20), after: z.string().optional() });

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
