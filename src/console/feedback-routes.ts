import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AgentDirectory } from '../agents/agent-directory.ts';
import { feedbackByVersion, listFeedback } from '../agents/feedback/feedback-repository.ts';
import { JunctionError } from '../core/errors.ts';
import { parseInput } from '../http/parse-body.ts';
import { findRunId } from '../runs/run-step-repository.ts';
import type { Database, Queryable } from '../store/database.ts';
import { accountReadsOf } from '../store/reporting-reads.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import { type FeedbackPage, FeedbackSearchQuerySchema, type FeedbackSummary } from './contract/feedback.ts';

export type ConsoleFeedbackDeps = { db: Database; now: () => Date; agents: AgentDirectory };

const AgentParamsSchema = z.object({ id: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, "_" and "-", at most 64') });
const RunParamsSchema = z.object({ id: z.string().min(1).max(200) });

/** The response a run answered, if it answered one: feedback may be given on either. */
async function runResponseId(db: Queryable, accountId: string, runId: string): Promise<string | null> {
  const found = await db.query<{ response_id: string }>(
    `SELECT response_id FROM run_steps WHERE account_id = $1 AND run_id = $2 AND response_id IS NOT NULL
     UNION ALL SELECT response_id FROM agent_runs WHERE account_id = $1 AND id = $2 AND response_id IS NOT NULL LIMIT 1`,
    [accountId, runId],
  );
  return found.rows[0]?.response_id ?? null;
}

/**
 * Feedback in the console: summed per version on the agent page, listed on a run's page,
 * and the account's rated runs filtered by agent, version and rating (members read all three).
 */
export async function consoleFeedbackRoutes(app: FastifyInstance, deps: ConsoleFeedbackDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const reads = (accountId: string) => accountReadsOf(deps.db, accountId);

  app.get('/agents/:id/feedback-summary', { preHandler: reader }, async (request): Promise<FeedbackSummary> => {
    const { accountId } = consoleCaller(request);
    const { id } = parseInput(AgentParamsSchema, request.params, 'path');
    if (!(await deps.agents.find(accountId, id))) throw new JunctionError('not_found', `No agent '${id}' in this account.`);
    const versions = await reads(accountId).session((db) => feedbackByVersion(db, accountId, id));
    return {
      agent_id: id,
      versions: versions.map((entry) => ({ version: entry.version, count: entry.count, mean_score: entry.meanScore, up: entry.up, down: entry.down, last_at: entry.lastAt.toISOString() })),
    };
  });

  app.get('/feedback', { preHandler: reader }, async (request): Promise<FeedbackPage> => {
    const { accountId } = consoleCaller(request);
    const query = parseInput(FeedbackSearchQuerySchema, request.query, 'query string');
    const filter = {
      ...(query.agent_id !== undefined && { agentId: query.agent_id }),
      ...(query.agent_version !== undefined && { agentVersion: query.agent_version }),
      ...(query.rating !== undefined && { rating: query.rating }),
    };
    const page = await reads(accountId).session((db) => listFeedback(db, accountId, filter, { limit: query.limit, after: query.cursor ?? null }));
    return { data: page.entries, next_cursor: page.hasMore ? (page.entries.at(-1)?.id ?? null) : null };
  });

  // By any id the run page is opened with: the run's, or the response it answered.
  app.get('/runs/:id/feedback', { preHandler: reader }, async (request): Promise<FeedbackPage> => {
    const { accountId } = consoleCaller(request);
    const { id } = parseInput(RunParamsSchema, request.params, 'path');
    const page = await reads(accountId).session(async (db) => {
      const runId = (await findRunId(db, accountId, id)) ?? id;
      const responseId = id.startsWith('resp_') ? id : await runResponseId(db, accountId, runId);
      return listFeedback(db, accountId, { run: { runId, responseId } }, { limit: 100, after: null });
    });
    return { data: page.entries, next_cursor: null };
  });
}
