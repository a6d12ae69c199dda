import { z } from 'zod';
import { randomHex } from '../../core/random-hex.ts';
import { storableJson } from '../../core/storable-text.ts';
import type { Queryable } from '../../store/database.ts';
import type { FeedbackEntry, FeedbackInput, FeedbackRating } from './feedback-schemas.ts';
import type { FeedbackTarget } from './feedback-target.ts';

type FeedbackRow = {
  id: string;
  response_id: string | null;
  message_id: string | null;
  run_id: string | null;
  agent_id: string;
  agent_version: string | null;
  key_id: string | null;
  score: number;
  thumb: 'up' | 'down' | null;
  label: string | null;
  comment: string | null;
  metadata: unknown;
  created_at: Date;
};

const COLUMNS = 'id, response_id, message_id, run_id, agent_id, agent_version, key_id::text AS key_id, score, thumb, label, comment, metadata, created_at';
const MetadataSchema = z.record(z.string(), z.unknown()).catch({});

const toEntry = (row: FeedbackRow): FeedbackEntry => ({
  id: row.id,
  object: 'feedback',
  response_id: row.response_id,
  message_id: row.message_id,
  run_id: row.run_id,
  agent_id: row.agent_id,
  agent_version: row.agent_version,
  score: Number(row.score),
  thumb: row.thumb,
  label: row.label,
  comment: row.comment,
  metadata: MetadataSchema.parse(row.metadata),
  key_id: row.key_id,
  created_at: Math.floor(row.created_at.getTime() / 1000),
});

export const newFeedbackId = (): string => `fb_${randomHex(16)}`;

/** One entry more on an answer: each is kept, with the key that gave it. */
export async function addFeedback(db: Queryable, accountId: string, keyId: string | null, target: FeedbackTarget, input: FeedbackInput): Promise<FeedbackEntry> {
  const result = await db.query<FeedbackRow>(
    `INSERT INTO agent_feedback (id, account_id, response_id, message_id, conversation_id, run_id, agent_id, agent_version, key_id, score, thumb, label, comment, metadata)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb)
     RETURNING ${COLUMNS}`,
    [
      newFeedbackId(),
      accountId,
      target.responseId,
      target.messageId,
      target.conversationId,
      target.runId,
      target.agentId,
      target.agentVersion,
      keyId,
      input.score.score,
      input.score.thumb,
      input.label ?? null,
      input.comment ?? null,
      storableJson(input.metadata ?? {}),
    ],
  );
  const row = result.rows[0];
  if (!row) throw new Error('feedback insert returned no row');
  return toEntry(row);
}

/** Which entries: of one answer (a response or a message), of one run, or of the account filtered by agent, version and rating. */
export type FeedbackFilter = {
  responseId?: string;
  messageId?: string;
  /** A run's entries: given on its response or on one of its messages. */
  run?: { runId: string; responseId: string | null };
  agentId?: string;
  agentVersion?: string;
  rating?: FeedbackRating;
};

export type FeedbackPage = { entries: FeedbackEntry[]; hasMore: boolean };

/** Newest first, `limit` at a time after the entry `after`; an agent's, or a version's of it, are an index range (migration 0038). */
export async function listFeedback(db: Queryable, accountId: string, filter: FeedbackFilter, page: { limit: number; after: string | null }): Promise<FeedbackPage> {
  const params: unknown[] = [accountId];
  const where = ['account_id = $1'];
  const add = (clause: (param: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (filter.responseId !== undefined) add((p) => `response_id = ${p}`, filter.responseId);
  if (filter.messageId !== undefined) add((p) => `message_id = ${p}`, filter.messageId);
  if (filter.run) {
    const { runId, responseId } = filter.run;
    if (responseId === null) add((p) => `run_id = ${p}`, runId);
    else {
      params.push(runId, responseId);
      where.push(`(run_id = $${params.length - 1} OR response_id = $${params.length})`);
    }
  }
  if (filter.agentId !== undefined) add((p) => `agent_id = ${p}`, filter.agentId);
  if (filter.agentVersion !== undefined) add((p) => `agent_version = ${p}`, filter.agentVersion);
  if (filter.rating !== undefined) where.push(filter.rating === 'up' ? 'agent_feedback_is_up(score)' : 'NOT agent_feedback_is_up(score)');
  if (page.after !== null) add((p) => `position < (SELECT position FROM agent_feedback WHERE account_id = $1 AND id = ${p})`, page.after);
  params.push(page.limit + 1);
  const result = await db.query<FeedbackRow>(`SELECT ${COLUMNS} FROM agent_feedback WHERE ${where.join(' AND ')} ORDER BY position DESC LIMIT $${params.length}`, params);
  return { entries: result.rows.slice(0, page.limit).map(toEntry), hasMore: result.rows.length > page.limit };
}

export type VersionFeedback = { version: string | null; count: number; meanScore: number; up: number; down: number; lastAt: Date };

/**
 * An agent's feedback summed per version, the version most recently rated first: the sums
 * are kept per version as entries are written (migration 0040), and each version's newest
 * entry (whose time is `lastAt`) is one step down migration 0038's index.
 */
export async function feedbackByVersion(db: Queryable, accountId: string, agentId: string): Promise<VersionFeedback[]> {
  const result = await db.query<{ agent_version: string | null; count: number; mean_score: number; up: number; down: number; last_at: Date }>(
    `SELECT t.agent_version, t.entries::int AS count, (t.score_sum / t.entries)::float8 AS mean_score, t.up::int AS up, t.down::int AS down, newest.created_at AS last_at
       FROM agent_feedback_version_totals t
       CROSS JOIN LATERAL (
         (SELECT position, created_at FROM agent_feedback f
           WHERE t.agent_version IS NOT NULL AND f.account_id = t.account_id AND f.agent_id = t.agent_id AND f.agent_version = t.agent_version
           ORDER BY position DESC LIMIT 1)
         UNION ALL
         (SELECT position, created_at FROM agent_feedback f
           WHERE t.agent_version IS NULL AND f.account_id = t.account_id AND f.agent_id = t.agent_id AND f.agent_version IS NULL
           ORDER BY position DESC LIMIT 1)
       ) newest
      WHERE t.account_id = $1 AND t.agent_id = $2 AND t.entries > 0
      ORDER BY newest.position DESC`,
    [accountId, agentId],
  );
  return result.rows.map((row) => ({ version: row.agent_version, count: row.count, meanScore: Number(row.mean_score), up: row.up, down: row.down, lastAt: row.last_at }));
}
