import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { listMessages } from '../conversations/conversation-repository.ts';
import { JunctionError } from '../core/errors.ts';
import { parseInput } from '../http/parse-body.ts';
import type { Database } from '../store/database.ts';
import { accountReadsOf } from '../store/reporting-reads.ts';
import { type ConsoleCaller, consoleCaller, requireConsoleUser } from './console-auth.ts';
import { ConversationIdParamsSchema, type ConversationDetail, ConversationListQuerySchema, type ConversationPage } from './contract/conversations.ts';
import { type ConversationScope, findAccountConversation, listAgentConversations, playgroundKeyId, runIdsOfResponses, runUsageTotals } from './conversations-repository.ts';
import { recordedRunId, toNode, toRunUsage, toSummary } from './conversations-view.ts';

export type ConsoleConversationsDeps = { db: Database; now: () => Date; settle: () => Promise<void> };

const AgentParamsSchema = z.object({ id: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, "_" and "-", at most 64') });

const notFound = (id: string) => new JunctionError('not_found', `No conversation '${id}' in this account.`);

/**
 * Conversations in the console: every conversation of the account's agents, made through
 * the API or the playground, listed per agent and opened as the whole tree with the usage
 * of each run. Owners and admins see every key's; a member sees only their own playground's,
 * since API conversations hold what an app's end users wrote.
 */
export async function consoleConversationsRoutes(app: FastifyInstance, deps: ConsoleConversationsDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const reads = (accountId: string) => accountReadsOf(deps.db, accountId);

  /** Undefined when the caller may see no conversation at all (a member who never used the playground). */
  const scopeOf = async (caller: ConsoleCaller): Promise<ConversationScope | undefined> => {
    if (caller.role !== 'member') return { accountId: caller.accountId, onlyKeyId: null };
    const keyId = await reads(caller.accountId).session((db) => playgroundKeyId(db, caller.accountId, caller.user.id));
    return keyId === null ? undefined : { accountId: caller.accountId, onlyKeyId: keyId };
  };

  app.get('/agents/:id/conversations', { preHandler: reader }, async (request): Promise<ConversationPage> => {
    const { id } = parseInput(AgentParamsSchema, request.params, 'path');
    const query = parseInput(ConversationListQuerySchema, request.query, 'query string');
    const scope = await scopeOf(consoleCaller(request));
    if (!scope) return { data: [], next_cursor: null };
    const page = await reads(scope.accountId).session((db) => listAgentConversations(db, scope, id, { keyId: query.key_id ?? null, after: query.cursor ?? null, limit: query.limit }));
    const last = page.conversations.at(-1);
    return { data: page.conversations.map(toSummary), next_cursor: page.hasMore && last ? last.id : null };
  });

  app.get('/conversations/:id', { preHandler: reader }, async (request): Promise<ConversationDetail> => {
    const { id } = parseInput(ConversationIdParamsSchema, request.params, 'path');
    const scope = await scopeOf(consoleCaller(request));
    if (!scope) throw notFound(id);
    // The last run's usage rows may still be queued for the next group commit.
    await deps.settle();
    return reads(scope.accountId).session(async (db) => {
      const header = await findAccountConversation(db, scope, id);
      if (!header) throw notFound(id);
      const messages = await listMessages(db, header.id);
      const unrecorded = [...new Set(messages.flatMap((node) => (recordedRunId(node) === null && node.responseId !== null ? [node.responseId] : [])))];
      const byResponse = await runIdsOfResponses(db, scope.accountId, unrecorded);
      const runIdOf = (node: (typeof messages)[number]) => recordedRunId(node) ?? (node.responseId === null ? null : (byResponse.get(node.responseId) ?? null));
      const nodes = messages.map((node) => toNode(node, node.message.role === 'user' ? null : runIdOf(node)));
      const runIds = [...new Set(nodes.flatMap((node) => (node.run_id === null ? [] : [node.run_id])))];
      const runs = await runUsageTotals(db, scope.accountId, runIds);
      return { ...toSummary(header), messages: nodes, latest_message_id: messages.at(-1)?.id ?? null, runs: runs.map(toRunUsage) };
    });
  });
}
