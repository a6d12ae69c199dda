import type { Queryable } from '../store/database.ts';
import { type ConversationOwner, newConversationId } from './conversation-repository.ts';

/** Marks a conversation made empty through the OpenAI Conversations API: no agent has spoken in it yet. */
export const NO_AGENT_YET = '';

/**
 * `POST /conversations` as OpenAI's API has it: an empty conversation, owned like any,
 * that a later response joins with `conversation: <id>` (its messages record their agent).
 */
export async function createEmptyConversation(db: Queryable, owner: ConversationOwner, metadata: Record<string, string>): Promise<{ id: string; createdAt: Date }> {
  const id = newConversationId();
  const result = await db.query<{ created_at: Date }>('INSERT INTO conversations (id, account_id, key_id, agent_id, metadata) VALUES ($1, $2, $3, $4, $5::jsonb) RETURNING created_at', [
    id,
    owner.accountId,
    owner.keyId,
    NO_AGENT_YET,
    JSON.stringify(metadata),
  ]);
  return { id, createdAt: (result.rows[0] as { created_at: Date }).created_at };
}
