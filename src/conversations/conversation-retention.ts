import type { Queryable } from '../store/database.ts';
import { deleteInBatches, type RetentionSweepOptions, retentionCutoff } from '../store/retention-sweep.ts';

/** Conversations one statement deletes: each takes its messages, responses and feedback with it. */
const CONVERSATION_BATCH = 100;

/** JUNCTION_CONVERSATION_RETENTION_DAYS: days a conversation is kept after its last turn; unset keeps them for ever. */
export function conversationRetentionDays(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const text = env.JUNCTION_CONVERSATION_RETENTION_DAYS;
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 36_500) throw new Error('JUNCTION_CONVERSATION_RETENTION_DAYS must be a whole number of days between 1 and 36500');
  return value;
}

/** Oldest first; SKIP LOCKED so the sweeps of several hosts split the rows instead of waiting on each other. */
async function deleteConversationsBefore(db: Queryable, before: Date, limit: number): Promise<number> {
  const result = await db.query('DELETE FROM conversations WHERE id IN (SELECT id FROM conversations WHERE updated_at < $1 ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)', [before, limit]);
  return result.rowCount;
}

/** Stored responses that never reached a conversation (those in one go with it). */
async function deleteUnattachedResponsesBefore(db: Queryable, before: Date, limit: number): Promise<number> {
  const result = await db.query('DELETE FROM responses WHERE id IN (SELECT id FROM responses WHERE conversation_id IS NULL AND created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)', [
    before,
    limit,
  ]);
  return result.rowCount;
}

/**
 * Deletes the conversations whose last turn is older than the retention (with their
 * messages, stored responses and feedback) and the unattached responses as old, in bounded
 * batches; how many conversations and responses went.
 */
export async function sweepConversations({ db, days, now }: RetentionSweepOptions): Promise<number> {
  const before = retentionCutoff(now(), days);
  const conversations = await deleteInBatches((limit) => deleteConversationsBefore(db, before, limit), CONVERSATION_BATCH);
  return conversations + (await deleteInBatches((limit) => deleteUnattachedResponsesBefore(db, before, limit)));
}
