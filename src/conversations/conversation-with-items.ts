import type { ModelMessage } from '../core/model-types.ts';
import type { Database } from '../store/database.ts';
import { appendMessages, type ConversationOwner, newConversationId } from './conversation-repository.ts';
import { conversationTitle } from './conversation-service.ts';
import { NO_AGENT_YET } from './created-conversation.ts';

/**
 * `POST /conversations` with `items`, as OpenAI's API has it: the conversation and its
 * first messages (a chain from the root, no agent having spoken) written together, so a
 * failed write leaves no empty conversation behind.
 */
export async function createConversationWithItems(
  db: Database,
  owner: ConversationOwner,
  metadata: Record<string, string>,
  messages: readonly ModelMessage[],
): Promise<{ id: string; createdAt: Date }> {
  const id = newConversationId();
  return db.transaction(async (tx) => {
    const result = await tx.query<{ created_at: Date }>('INSERT INTO conversations (id, account_id, key_id, agent_id, title, metadata) VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING created_at', [
      id,
      owner.accountId,
      owner.keyId,
      NO_AGENT_YET,
      conversationTitle(messages),
      JSON.stringify(metadata),
    ]);
    await appendMessages(tx, { conversationId: id, parentId: null, agentId: null, messages: messages.map((message) => ({ message })) });
    return { id, createdAt: (result.rows[0] as { created_at: Date }).created_at };
  });
}
