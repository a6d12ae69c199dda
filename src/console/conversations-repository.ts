import type { Queryable } from '../store/database.ts';

/**
 * The console's reads of conversation trees across every key of one account (the Agents
 * API reads them per key: src/conversations/). Every statement is scoped to the account,
 * and, for a member, to that person's own playground key.
 */

export type ConversationScope = { accountId: string /** Set for members: only this key's conversations. */; onlyKeyId: string | null };

export type ConversationHeader = {
  id: string;
  agentId: string;
  keyId: string;
  keyName: string;
  keyKind: string;
  /** The person a playground key belongs to, when it is one. */
  playgroundUser: string | null;
  title: string | null;
  messageCount: number;
  createdAt: Date;
  updatedAt: Date;
};

type HeaderRow = {
  id: string;
  agent_id: string;
  key_id: string;
  key_name: string;
  key_kind: string;
  playground_user: string | null;
  title: string | null;
  message_count: string | number;
  created_at: Date;
  updated_at: Date;
};

const toHeader = (row: HeaderRow): ConversationHeader => ({
  id: row.id,
  agentId: row.agent_id,
  keyId: row.key_id,
  keyName: row.key_name,
  keyKind: row.key_kind,
  playgroundUser: row.playground_user,
  title: row.title,
  messageCount: Number(row.message_count),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

// A conversation made empty (the playground's, or OpenAI's POST /conversations) has no title: its first user text stands in.
const HEADER_SELECT = `SELECT c.id,
       COALESCE(NULLIF(c.agent_id, ''), (SELECT m.agent_id FROM conversation_messages m WHERE m.conversation_id = c.id AND m.agent_id IS NOT NULL ORDER BY m.position LIMIT 1), '') AS agent_id,
       c.key_id, k.name AS key_name, k.kind AS key_kind, u.email AS playground_user,
       COALESCE(c.title, (SELECT left(m.message->'content'->0->>'text', 80) FROM conversation_messages m
         WHERE m.conversation_id = c.id AND m.role = 'user' ORDER BY m.position LIMIT 1)) AS title,
       (SELECT count(*) FROM conversation_messages m WHERE m.conversation_id = c.id) AS message_count, c.created_at, c.updated_at
     FROM conversations c
     JOIN api_keys k ON k.id = c.key_id
     LEFT JOIN playground_keys p ON p.key_id = c.key_id AND p.account_id = c.account_id
     LEFT JOIN users u ON u.id = p.user_id`;

/** The key a member's playground runs under, if they ever used it. */
export async function playgroundKeyId(db: Queryable, accountId: string, userId: string): Promise<string | null> {
  const result = await db.query<{ key_id: string }>('SELECT key_id FROM playground_keys WHERE account_id = $1 AND user_id = $2', [accountId, userId]);
  return result.rows[0]?.key_id ?? null;
}

/**
 * One agent's conversations, newest first (index conversations_agent, migration 0025; of
 * one key, conversations_agent_key, 0038, which the planner takes once the key parameter is
 * known, as it is in these unprepared statements); `after` is the id of the last
 * conversation of the previous page. A conversation made
 * empty takes the agent of its first agent turn.
 */
export async function listAgentConversations(
  db: Queryable,
  scope: ConversationScope,
  agentId: string,
  page: { keyId: string | null; after: string | null; limit: number },
): Promise<{ conversations: ConversationHeader[]; hasMore: boolean }> {
  const result = await db.query<HeaderRow>(
    `${HEADER_SELECT}
     WHERE c.account_id = $1
       AND c.agent_id = $2
       AND ($3::uuid IS NULL OR c.key_id = $3::uuid)
       AND ($4::uuid IS NULL OR c.key_id = $4::uuid)
       AND ($5::text IS NULL OR c.position < (SELECT a.position FROM conversations a WHERE a.id = $5 AND a.account_id = $1))
     ORDER BY c.position DESC LIMIT $6`,
    [scope.accountId, agentId, page.keyId, scope.onlyKeyId, page.after, page.limit + 1],
  );
  return { conversations: result.rows.slice(0, page.limit).map(toHeader), hasMore: result.rows.length > page.limit };
}

export async function findAccountConversation(db: Queryable, scope: ConversationScope, id: string): Promise<ConversationHeader | undefined> {
  const result = await db.query<HeaderRow>(`${HEADER_SELECT} WHERE c.id = $1 AND c.account_id = $2 AND ($3::uuid IS NULL OR c.key_id = $3::uuid)`, [id, scope.accountId, scope.onlyKeyId]);
  return result.rows[0] ? toHeader(result.rows[0]) : undefined;
}

export type RunUsageTotals = { runId: string; calls: number; inputTokens: number; outputTokens: number; costMicros: number };

/** The usage rows of these agent runs in the account, summed per run. */
export async function runUsageTotals(db: Queryable, accountId: string, runIds: readonly string[]): Promise<RunUsageTotals[]> {
  if (runIds.length === 0) return [];
  const result = await db.query<{ agent_run_id: string; calls: string | number; input_tokens: string | number; output_tokens: string | number; cost_micros: string | number }>(
    `SELECT agent_run_id, count(*) AS calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cost_micros) AS cost_micros
     FROM usage_log WHERE agent_run_id = ANY($1::text[]) AND account_id = $2 GROUP BY agent_run_id`,
    [runIds, accountId],
  );
  return result.rows.map((row) => ({
    runId: row.agent_run_id,
    calls: Number(row.calls),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    costMicros: Number(row.cost_micros),
  }));
}

/** Background responses name their run in agent_runs: the link for turns stored without a run id. */
export async function runIdsOfResponses(db: Queryable, accountId: string, responseIds: readonly string[]): Promise<Map<string, string>> {
  if (responseIds.length === 0) return new Map();
  const result = await db.query<{ id: string; response_id: string }>('SELECT id, response_id FROM agent_runs WHERE response_id = ANY($1::text[]) AND account_id = $2', [responseIds, accountId]);
  return new Map(result.rows.map((row) => [row.response_id, row.id]));
}
