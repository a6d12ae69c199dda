import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { authenticatedKey } from '../../http/auth-hook.ts';
import { parseInput } from '../../http/parse-body.ts';
import type { Queryable } from '../../store/database.ts';
import { addFeedback, type FeedbackFilter, listFeedback } from '../feedback/feedback-repository.ts';
import { FeedbackInputSchema, type FeedbackList } from '../feedback/feedback-schemas.ts';
import { type FeedbackTarget, messageTarget, responseTarget } from '../feedback/feedback-target.ts';
import type { AgentsApiDeps } from './agents-api-deps.ts';

const IdParamsSchema = z.object({ id: z.string().min(1).max(200) });
const ListQuerySchema = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20), after: z.string().min(1).max(200).optional() });

type Answer = {
  /** The answer in the caller's account, or 404 alike for unknown and another account's. */
  target: (db: Queryable, accountId: string, id: string) => Promise<FeedbackTarget>;
  /** The entries of the answer with this id. */
  filter: (id: string) => FeedbackFilter;
};

/** A stored response (`resp_…`), and a chat answer by the `message_id` its reply carried. */
const ANSWERS: Record<string, Answer> = {
  '/responses/:id/feedback': { target: responseTarget, filter: (id) => ({ responseId: id }) },
  '/chat/completions/:id/feedback': { target: messageTarget, filter: (id) => ({ messageId: id }) },
};

/**
 * Feedback on an agent's answers from the app its users talk to: a score (a thumb or
 * 0–1), a label and a comment, as many entries as people give, each counted for the
 * agent version that wrote the answer. Any agent key of the account may give and read it.
 */
export async function feedbackRoutes(app: FastifyInstance, deps: AgentsApiDeps): Promise<void> {
  const answerOf = async (request: FastifyRequest, answer: Answer) => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const key = authenticatedKey(request);
    return { id, key, target: await answer.target(deps.db, key.accountId, id) };
  };
  for (const [path, answer] of Object.entries(ANSWERS)) {
    app.post(path, async (request) => {
      const input = parseInput(FeedbackInputSchema, request.body);
      const { key, target } = await answerOf(request, answer);
      return addFeedback(deps.db, key.accountId, key.id, target, input);
    });

    app.get(path, async (request): Promise<FeedbackList> => {
      const query = parseInput(ListQuerySchema, request.query, 'query string');
      const { id, key } = await answerOf(request, answer);
      const page = await listFeedback(deps.db, key.accountId, answer.filter(id), { limit: query.limit, after: query.after ?? null });
      return { object: 'list', data: page.entries, first_id: page.entries[0]?.id ?? null, last_id: page.entries.at(-1)?.id ?? null, has_more: page.hasMore };
    });
  }
}
