import { randomHex } from '../core/random-hex.ts';
import { storableJson } from '../core/storable-text.ts';
import { z } from 'zod';
import type { ModelMessage } from '../core/model-types.ts';
import type { Queryable } from '../store/database.ts';
import { statementName } from '../store/statement-name.ts';

/**
 * SQL for conversation trees (migrations/0004_conversations.sql). Every read that
 * starts from a client-supplied id is scoped to the owner (account AND key); reads
 * by conversation id assume the caller already resolved an owned conversation.
 */

export type ConversationOwner = { accountId: string; keyId: string };

export type Conversation = {
  id: string;
  accountId: string;
  keyId: string;
  agentId: string;
  title: string | null;
  metadata: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
};

export type MessageUsage = { inputTokens: number; outputTokens: number };

export type StoredMessage = {
  id: string;
  conversationId: string;
  parentId: string | null;
  message: ModelMessage;
  model: string | null;
  agentId: string | null;
  responseId: string | null;
  usage: MessageUsage | null;
  costMicros: number | null;
  metadata: Record<string, unknown>;
  createdAt: Date;
  /** Ids of this node's items deleted through the Conversations API (migrations/0016). */
  hiddenItems?: readonly string[];
  /** Set once every item of the node is hidden. */
  deletedAt?: Date | null;
};

/** One node to append; the chain's parent links are assigned by `appendMessages`. */
export type NewMessage = {
  /** Pre-assigned id (a streamed answer announces its message id before it is stored). */
  id?: string;
  message: ModelMessage;
  model?: string | null;
  agentId?: string | null;
  responseId?: string | null;
  usage?: MessageUsage | null;
  costMicros?: number | null;
  metadata?: Record<string, unknown>;
};

const randomId = (prefix: string): string => `${prefix}_${randomHex(24)}`;
export const newConversationId = (): string => randomId('conv');
export const newMessageId = (): string => randomId('msg');

// Lenient on read: unknown keys are dropped, not rejected, so rows written by a newer
// version still load; the discriminants must hold or the row is corrupt.
const CacheControlSchema = z.object({ type: z.literal('ephemeral'), ttl: z.string().optional() });
const hints = { cacheControl: CacheControlSchema.optional() };
const TextPartSchema = z.object({ type: z.literal('text'), text: z.string(), ...hints });
const detail = { detail: z.enum(['auto', 'low', 'high']).optional(), ...hints };
const ImagePartSchema = z.union([z.object({ type: z.literal('image'), url: z.string(), ...detail }), z.object({ type: z.literal('image'), data: z.string(), mediaType: z.string(), ...detail })]);
const file = { type: z.literal('file'), mediaType: z.string(), filename: z.string().optional(), ...hints };
const FilePartSchema = z.union([z.object({ data: z.string(), ...file }), z.object({ url: z.string(), ...file })]);
const ReasoningPartSchema = z.object({
  type: z.literal('reasoning'),
  text: z.string(),
  signature: z.string().optional(),
  redactedData: z.string().optional(),
});
const ToolCallPartSchema = z.object({ type: z.literal('tool-call'), id: z.string(), name: z.string(), arguments: z.string() });

export const ModelMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string(), ...hints }),
  z.object({ role: z.literal('user'), content: z.array(z.union([TextPartSchema, ImagePartSchema, FilePartSchema])) }),
  z.object({ role: z.literal('assistant'), content: z.array(z.union([TextPartSchema, ReasoningPartSchema, ToolCallPartSchema])) }),
  z.object({
    role: z.literal('tool'),
    toolCallId: z.string(),
    name: z.string().optional(),
    content: z.string(),
    isError: z.boolean().optional(),
    ...hints,
  }),
]);

const MetadataSchema = z.record(z.string(), z.unknown()).catch({});

type ConversationRow = {
  id: string;
  account_id: string;
  key_id: string;
  agent_id: string;
  title: string | null;
  metadata: unknown;
  created_at: Date;
  updated_at: Date;
};
const CONVERSATION_COLUMNS = 'c.id, c.account_id, c.key_id, c.agent_id, c.title, c.metadata, c.created_at, c.updated_at';
const toConversation = (row: ConversationRow): Conversation => ({
  id: row.id,
  accountId: row.account_id,
  keyId: row.key_id,
  agentId: row.agent_id,
  title: row.title,
  metadata: MetadataSchema.parse(row.metadata),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

type MessageRow = {
  id: string;
  conversation_id: string;
  parent_id: string | null;
  message: unknown;
  model: string | null;
  agent_id: string | null;
  response_id: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_micros: number | null;
  metadata: unknown;
  created_at: Date;
  hidden_items: unknown;
  deleted_at: Date | null;
};
// The array travels as jsonb: both engines hand jsonb back as a parsed value.
const MESSAGE_COLUMNS =
  'm.id, m.conversation_id, m.parent_id, m.message, m.model, m.agent_id, m.response_id, m.input_tokens, m.output_tokens, m.cost_micros, m.metadata, m.created_at, to_jsonb(m.hidden_items) AS hidden_items, m.deleted_at';
const HiddenItemsSchema = z.array(z.string()).catch([]);
const toStoredMessage = (row: MessageRow): StoredMessage => ({
  id: row.id,
  conversationId: row.conversation_id,
  parentId: row.parent_id,
  message: ModelMessageSchema.parse(row.message),
  model: row.model,
  agentId: row.agent_id,
  responseId: row.response_id,
  usage: row.input_tokens === null && row.output_tokens === null ? null : { inputTokens: row.input_tokens ?? 0, outputTokens: row.output_tokens ?? 0 },
  costMicros: row.cost_micros,
  metadata: MetadataSchema.parse(row.metadata),
  createdAt: row.created_at,
  hiddenItems: HiddenItemsSchema.parse(row.hidden_items ?? []),
  deletedAt: row.deleted_at ?? null,
});

export async function findConversation(db: Queryable, owner: ConversationOwner, id: string): Promise<Conversation | undefined> {
  const result = await db.query<ConversationRow>(`SELECT ${CONVERSATION_COLUMNS} FROM conversations c WHERE c.id = $1 AND c.account_id = $2 AND c.key_id = $3`, [id, owner.accountId, owner.keyId]);
  return result.rows[0] ? toConversation(result.rows[0]) : undefined;
}

/** A conversation `appendMessages` creates with its first messages. */
export type NewConversation = { owner: ConversationOwner; agentId: string; title: string | null };

export type AppendedMessages = {
  messages: StoredMessage[];
  /** The conversation's timestamps after the append (created_at only when it was created here). */
  conversationCreatedAt: Date | null;
  conversationUpdatedAt: Date | null;
};

/** The most messages a turn's write may have and still be a prepared statement. */
const PREPARED_TURN_MESSAGES = 6;

/** A write to run within another statement: its SQL, with parameters numbered from `firstParam`. */
export type StatementPart = (firstParam: number) => { sql: string; params: unknown[] };

/**
 * Appends `messages` as a chain under `parentId` (null only for a new conversation's
 * root), creating the conversation first when `create` is given, and bumps its
 * updated_at. One statement, so the turn is atomic without a transaction (a chat turn
 * is one round trip); the foreign keys (checked at statement end) reject a parent from
 * another conversation or a conversation that is gone.
 */
export async function appendMessages(
  db: Queryable,
  chain: { conversationId: string; parentId: string | null; agentId: string | null; messages: readonly NewMessage[]; create?: NewConversation; alongside?: StatementPart },
): Promise<AppendedMessages> {
  const params: unknown[] = [chain.conversationId];
  const create = chain.create;
  if (create) params.push(create.owner.accountId, create.owner.keyId, create.agentId, create.title);
  const rows: string[] = [];
  const ids: string[] = [];
  let parentId = chain.parentId;
  /** The parameter holding the first message's agent: a conversation made empty takes it as its agent. */
  let firstAgentParam: string | undefined;
  for (const item of chain.messages) {
    const id = item.id ?? newMessageId();
    ids.push(id);
    const values = [
      id,
      parentId,
      item.message.role,
      // Model and tool text is stored as it came, less what PostgreSQL cannot hold.
      storableJson(item.message),
      item.model ?? null,
      item.agentId ?? chain.agentId,
      item.responseId ?? null,
      item.usage?.inputTokens ?? null,
      item.usage?.outputTokens ?? null,
      item.costMicros ?? null,
      storableJson(item.metadata ?? {}),
    ];
    const first = params.length + 1;
    params.push(...values);
    const p = (offset: number) => `$${first + offset}`;
    firstAgentParam ??= p(5);
    rows.push(`(${p(0)}, $1, ${p(1)}, ${p(2)}, ${p(3)}::jsonb, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}::integer, ${p(8)}::integer, ${p(9)}::bigint, ${p(10)}::jsonb)`);
    parentId = id;
  }
  if (rows.length === 0) return { messages: [], conversationCreatedAt: null, conversationUpdatedAt: null };
  // Another write of the same turn, as a CTE of this statement: it commits with the messages or not at all.
  const alongside = chain.alongside?.(params.length + 1);
  if (alongside) params.push(...alongside.params);
  // The UPDATE cannot see a row the same statement inserts: a new conversation's times come from its INSERT.
  const created = create
    ? `created AS (INSERT INTO conversations (id, account_id, key_id, agent_id, title) VALUES ($1, $2, $3, $4, $5) RETURNING created_at, updated_at)`
    : `created AS (SELECT NULL::timestamptz AS created_at, NULL::timestamptz AS updated_at WHERE false)`;
  const sql = `WITH ${created},
     touched AS (UPDATE conversations SET updated_at = now(),
       agent_id = CASE WHEN agent_id = '' THEN COALESCE(${firstAgentParam}::text, '') ELSE agent_id END
       WHERE id = $1 RETURNING updated_at)${
         alongside
           ? `,
     alongside AS (${alongside.sql})`
           : ''
       }
     INSERT INTO conversation_messages AS m
       (id, conversation_id, parent_id, role, message, model, agent_id, response_id, input_tokens, output_tokens, cost_micros, metadata)
     VALUES ${rows.join(', ')}
     RETURNING ${MESSAGE_COLUMNS}, (SELECT created_at FROM created) AS conversation_created_at,
       COALESCE((SELECT updated_at FROM touched), (SELECT updated_at FROM created)) AS conversation_updated_at`;
  // A turn's write is prepared (planned once, not on every turn) for the common sizes; a
  // turn of many tool steps is rare and would only fill the statement cache.
  const options = rows.length <= PREPARED_TURN_MESSAGES ? { prepareAs: statementName('conversation-append', sql) } : undefined;
  const result = await db.query<MessageRow & { conversation_created_at: Date | null; conversation_updated_at: Date | null }>(sql, params, options);
  // RETURNING order is not promised; the chain order is.
  const byId = new Map(result.rows.map((row) => [row.id, toStoredMessage(row)]));
  const first = result.rows[0];
  return {
    messages: ids.map((id) => byId.get(id) as StoredMessage),
    conversationCreatedAt: first?.conversation_created_at ?? null,
    conversationUpdatedAt: first?.conversation_updated_at ?? null,
  };
}

/** A message whose conversation belongs to `owner` (its `conversationId` says which one). */
export async function findOwnedMessage(db: Queryable, owner: ConversationOwner, messageId: string): Promise<StoredMessage | undefined> {
  const result = await db.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
     WHERE m.id = $1 AND c.account_id = $2 AND c.key_id = $3`,
    [messageId, owner.accountId, owner.keyId],
  );
  return result.rows[0] ? toStoredMessage(result.rows[0]) : undefined;
}

/**
 * The path from the root to `messageId`, root first. Each recursive step is one
 * primary-key lookup, so a path of depth d costs d index probes whatever the size
 * of the rest of the tree or the table.
 */
export async function findPath(db: Queryable, conversationId: string, messageId: string): Promise<StoredMessage[]> {
  const result = await db.query<MessageRow>(
    // Every column travels inside the recursion: joining the path back to the table
    // afterwards made the planner scan the whole table.
    `WITH RECURSIVE path AS (
       SELECT ${MESSAGE_COLUMNS}, 0 AS distance FROM conversation_messages m
       WHERE m.id = $1 AND m.conversation_id = $2
       UNION ALL
       SELECT ${MESSAGE_COLUMNS}, path.distance + 1
       FROM path JOIN conversation_messages m ON m.id = path.parent_id
     )
     SELECT * FROM path ORDER BY distance DESC`,
    [messageId, conversationId],
  );
  return result.rows.map(toStoredMessage);
}

/** The last message appended to the conversation (highest append position), if any. */
export async function findLatestMessage(db: Queryable, conversationId: string): Promise<StoredMessage | undefined> {
  const result = await db.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM conversation_messages m
     WHERE m.conversation_id = $1 ORDER BY m.position DESC LIMIT 1`,
    [conversationId],
  );
  return result.rows[0] ? toStoredMessage(result.rows[0]) : undefined;
}

/** Every node of the conversation in append order (parents before children). */
export async function listMessages(db: Queryable, conversationId: string): Promise<StoredMessage[]> {
  const result = await db.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM conversation_messages m WHERE m.conversation_id = $1 ORDER BY m.position`, [conversationId]);
  return result.rows.map(toStoredMessage);
}

/** Newest first; `after` is the id of the last conversation of the previous page. */
export async function listConversations(db: Queryable, owner: ConversationOwner, page: { limit: number; after?: string | null }): Promise<{ conversations: Conversation[]; hasMore: boolean }> {
  const result = await db.query<ConversationRow>(
    `SELECT ${CONVERSATION_COLUMNS} FROM conversations c
     WHERE c.account_id = $1 AND c.key_id = $2
       AND ($3::text IS NULL OR c.position < (
         SELECT a.position FROM conversations a WHERE a.id = $3 AND a.account_id = $1 AND a.key_id = $2))
     ORDER BY c.position DESC LIMIT $4`,
    [owner.accountId, owner.keyId, page.after ?? null, page.limit + 1],
  );
  return {
    conversations: result.rows.slice(0, page.limit).map(toConversation),
    hasMore: result.rows.length > page.limit,
  };
}

/** Hard delete; messages and the responses stored in it go with it (ON DELETE CASCADE). */
export async function deleteConversation(db: Queryable, owner: ConversationOwner, id: string): Promise<boolean> {
  const result = await db.query('DELETE FROM conversations WHERE id = $1 AND account_id = $2 AND key_id = $3 RETURNING id', [id, owner.accountId, owner.keyId]);
  return result.rows.length > 0;
}

/**
 * Hides one item of a node (a soft delete); `nodeItems` are every item id the node shows,
 * so the node is marked deleted when this hides the last of them. False when the node is
 * gone or the item was already hidden.
 */
export async function hideMessageItem(db: Queryable, node: { conversationId: string; id: string }, itemId: string, nodeItems: readonly string[]): Promise<boolean> {
  const result = await db.query(
    `UPDATE conversation_messages
     SET hidden_items = array_append(hidden_items, $3::text),
         deleted_at = CASE WHEN $4::text[] <@ array_append(hidden_items, $3::text) THEN now() ELSE deleted_at END
     WHERE id = $1 AND conversation_id = $2 AND NOT ($3::text = ANY (hidden_items))
     RETURNING id`,
    [node.id, node.conversationId, itemId, [...nodeItems]],
  );
  return result.rows.length > 0;
}

export async function setConversationTitle(db: Queryable, conversationId: string, title: string | null): Promise<void> {
  await db.query('UPDATE conversations SET title = $2 WHERE id = $1', [conversationId, title]);
}
