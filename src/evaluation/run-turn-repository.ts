import type { Queryable } from '../store/database.ts';

/**
 * Where a run, a response or a conversation item of one account ended in its conversation
 * tree: the node a dataset case is taken from. Every statement is scoped to the account,
 * across all of its keys, so another account's ids name nothing.
 */
export type TurnEnd = { conversationId: string; messageId: string; responseId: string | null; runId: string | null };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type EndRow = { conversation_id: string; message_id: string; response_id: string | null; run_id: string | null };

const toEnd = (row: EndRow | undefined): TurnEnd | undefined => row && { conversationId: row.conversation_id, messageId: row.message_id, responseId: row.response_id, runId: row.run_id };

/** The last node a stored response wrote. */
export async function responseTurnEnd(db: Queryable, accountId: string, responseId: string): Promise<TurnEnd | undefined> {
  const result = await db.query<EndRow>(
    `SELECT r.conversation_id, r.last_message_id AS message_id, r.id AS response_id, m.metadata->>'run_id' AS run_id
     FROM responses r JOIN conversation_messages m ON m.id = r.last_message_id AND m.conversation_id = r.conversation_id
     WHERE r.id = $1 AND r.account_id = $2 AND r.store`,
    [responseId, accountId],
  );
  return toEnd(result.rows[0]);
}

/** The response a run answered and the key it ran with, from its steps, its durable row or its usage rows. */
async function runOrigin(db: Queryable, accountId: string, runId: string): Promise<{ responseId: string | null; keyId: string | null } | undefined> {
  const result = await db.query<{ response_id: string | null; key_id: string | null }>(
    `(SELECT response_id, key_id FROM run_steps WHERE account_id = $1 AND run_id = $2 ORDER BY response_id IS NULL, seq LIMIT 1)
     UNION ALL (SELECT response_id, key_id::text FROM agent_runs WHERE account_id = $1 AND id = $2)
     UNION ALL (SELECT NULL, key_id::text FROM usage_log WHERE agent_run_id = $2 AND account_id = $1 LIMIT 1)`,
    [accountId, runId],
  );
  if (result.rows.length === 0) return undefined;
  const keyId = result.rows.find((row) => row.key_id && UUID.test(row.key_id))?.key_id ?? null;
  return { responseId: result.rows.find((row) => row.response_id)?.response_id ?? null, keyId };
}

/** The last node an agent run wrote: its response's, else the latest node that records the run's id. */
export async function runTurnEnd(db: Queryable, accountId: string, runId: string): Promise<TurnEnd | undefined> {
  const origin = await runOrigin(db, accountId, runId);
  if (!origin) return undefined;
  if (origin.responseId) {
    const end = await responseTurnEnd(db, accountId, origin.responseId);
    if (end) return { ...end, runId };
  }
  // A chat-completions turn has no response: its nodes carry the run id, in a conversation of the key it ran with.
  const result = await db.query<EndRow>(
    `SELECT m.conversation_id, m.id AS message_id, m.response_id, $2::text AS run_id
     FROM conversations c JOIN conversation_messages m ON m.conversation_id = c.id
     WHERE c.account_id = $1 AND ($3::uuid IS NULL OR c.key_id = $3::uuid) AND m.metadata @> jsonb_build_object('run_id', $2::text)
     ORDER BY m.position DESC LIMIT 1`,
    [accountId, runId, origin.keyId],
  );
  return toEnd(result.rows[0]);
}

/** A conversation node of the account, by its id (and its conversation's, when given). */
export async function itemTurnEnd(db: Queryable, accountId: string, itemId: string, conversationId: string | null): Promise<TurnEnd | undefined> {
  const result = await db.query<EndRow>(
    `SELECT m.conversation_id, m.id AS message_id, m.response_id, m.metadata->>'run_id' AS run_id
     FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
     WHERE m.id = $1 AND c.account_id = $2 AND ($3::text IS NULL OR m.conversation_id = $3::text)`,
    [itemId, accountId, conversationId],
  );
  return toEnd(result.rows[0]);
}
