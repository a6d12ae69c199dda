import { JunctionError } from '../../core/errors.ts';
import type { Queryable } from '../../store/database.ts';

/** The answer feedback is about, and the agent and version that wrote it. */
export type FeedbackTarget = {
  responseId: string | null;
  messageId: string | null;
  conversationId: string | null;
  runId: string | null;
  agentId: string;
  agentVersion: string | null;
};

type ResponseTargetRow = {
  id: string;
  conversation_id: string | null;
  last_message_id: string | null;
  agent_id: string;
  announced_agent: string | null;
  announced_version: string | null;
  message_agent: string | null;
  message_version: string | null;
  run_id: string | null;
};

/**
 * A stored response of the account (any of its keys: feedback often comes from another part
 * of the app than the call). Its answer's last node names the agent that wrote it and the
 * version it ran at; a response without one (failed early) counts for what it announced.
 */
export async function responseTarget(db: Queryable, accountId: string, responseId: string): Promise<FeedbackTarget> {
  const result = await db.query<ResponseTargetRow>(
    `SELECT r.id, r.conversation_id, r.last_message_id, r.agent_id,
            r.request->'settings'->>'model' AS announced_agent, r.request->'settings'->>'agent_version' AS announced_version,
            m.agent_id AS message_agent, m.metadata->>'agent_version' AS message_version, m.metadata->>'run_id' AS run_id
       FROM responses r
       LEFT JOIN conversation_messages m ON m.conversation_id = r.conversation_id AND m.id = r.last_message_id
      WHERE r.id = $1 AND r.account_id = $2 AND r.store`,
    [responseId, accountId],
  );
  const row = result.rows[0];
  if (!row) throw new JunctionError('not_found', `No response found with id '${responseId}'.`);
  const announcedAgent = row.announced_agent ?? row.agent_id;
  const agentId = row.message_agent || announcedAgent;
  const agentVersion = row.message_version ?? (agentId === announcedAgent ? row.announced_version : null);
  return { responseId: row.id, messageId: row.last_message_id, conversationId: row.conversation_id, runId: row.run_id, agentId, agentVersion };
}

type MessageTargetRow = { id: string; conversation_id: string; agent_id: string | null; run_id: string; agent_version: string | null };

/**
 * A conversation node of the account that an agent run wrote (the chat endpoint's
 * `message_id`); a person's message, or one deleted from the conversation, is not an answer.
 */
export async function messageTarget(db: Queryable, accountId: string, messageId: string): Promise<FeedbackTarget> {
  const result = await db.query<MessageTargetRow>(
    `SELECT m.id, m.conversation_id, m.agent_id, m.metadata->>'run_id' AS run_id, m.metadata->>'agent_version' AS agent_version
       FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
      WHERE m.id = $1 AND c.account_id = $2 AND m.deleted_at IS NULL AND m.metadata->>'run_id' IS NOT NULL`,
    [messageId, accountId],
  );
  const row = result.rows[0];
  if (!row?.agent_id) throw new JunctionError('not_found', `No agent answer found with message id '${messageId}'.`);
  return { responseId: null, messageId: row.id, conversationId: row.conversation_id, runId: row.run_id, agentId: row.agent_id, agentVersion: row.agent_version };
}
