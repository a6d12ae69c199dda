import { randomHex } from '../core/random-hex.ts';
import { storableJson } from '../core/storable-text.ts';
import { z } from 'zod';
import { JunctionError } from '../core/errors.ts';
import type { Queryable } from '../store/database.ts';
import type { ConversationOwner } from './conversation-repository.ts';

/**
 * Stored Responses API responses. A response is scoped like a conversation: to the
 * account AND the key that made it. `store: false` responses are not saved by the
 * runtime; one saved with `store: false` anyway is invisible here, so it can neither
 * be fetched nor continued (previous_response_not_found), exactly as if unsaved.
 */

export const RESPONSE_STATUSES = ['queued', 'in_progress', 'completed', 'failed', 'incomplete', 'cancelled'] as const;
export type ResponseStatus = (typeof RESPONSE_STATUSES)[number];

const JsonObjectSchema = z.record(z.string(), z.unknown());
const ResponseErrorSchema = z.object({ code: z.string(), message: z.string() }).loose();
export type ResponseError = z.infer<typeof ResponseErrorSchema>;

export type StoredResponse = {
  id: string;
  accountId: string;
  keyId: string;
  agentId: string;
  conversationId: string | null;
  previousResponseId: string | null;
  /** The last conversation message this response produced: where a continuation attaches. */
  lastMessageId: string | null;
  status: ResponseStatus;
  model: string | null;
  /** The effective request in the Responses wire shape (input items, instructions, tools, settings). */
  request: Record<string, unknown>;
  /** Output items in the Responses wire shape. */
  output: Record<string, unknown>[];
  usage: Record<string, unknown> | null;
  costMicros: number;
  error: ResponseError | null;
  metadata: Record<string, unknown>;
  store: boolean;
  createdAt: Date;
  completedAt: Date | null;
};

export type ResponseToSave = Omit<StoredResponse, 'accountId' | 'keyId' | 'createdAt' | 'store' | 'metadata'> & {
  owner: ConversationOwner;
  store?: boolean;
  metadata?: Record<string, unknown>;
};

export const newResponseId = (): string => `resp_${randomHex(24)}`;

type ResponseRow = {
  id: string;
  account_id: string;
  key_id: string;
  agent_id: string;
  conversation_id: string | null;
  previous_response_id: string | null;
  last_message_id: string | null;
  status: string;
  model: string | null;
  request: unknown;
  output: unknown;
  usage: unknown;
  cost_micros: number;
  error: unknown;
  metadata: unknown;
  store: boolean;
  created_at: Date;
  completed_at: Date | null;
};

const COLUMNS =
  'id, account_id, key_id, agent_id, conversation_id, previous_response_id, last_message_id, status, model, request, output, usage, cost_micros, error, metadata, store, created_at, completed_at';

// Lenient on read: the wire-shaped columns belong to the Responses front-end, which
// parses them further; here they only need to be the right kind of JSON.
const toStoredResponse = (row: ResponseRow): StoredResponse => ({
  id: row.id,
  accountId: row.account_id,
  keyId: row.key_id,
  agentId: row.agent_id,
  conversationId: row.conversation_id,
  previousResponseId: row.previous_response_id,
  lastMessageId: row.last_message_id,
  status: z.enum(RESPONSE_STATUSES).parse(row.status),
  model: row.model,
  request: JsonObjectSchema.catch({}).parse(row.request),
  output: z.array(JsonObjectSchema).catch([]).parse(row.output),
  usage: JsonObjectSchema.nullable().catch(null).parse(row.usage),
  costMicros: row.cost_micros,
  error: ResponseErrorSchema.nullable().catch(null).parse(row.error),
  metadata: JsonObjectSchema.catch({}).parse(row.metadata),
  store: row.store,
  createdAt: row.created_at,
  completedAt: row.completed_at,
});

const json = (value: unknown): string | null => (value === null || value === undefined ? null : storableJson(value));

/**
 * Inserts or updates a response (a background response is saved queued, then again
 * when it ends). An update never crosses owners: a row of another account or key
 * with the same id is left alone and the call returns undefined.
 */
export async function saveResponse(db: Queryable, response: ResponseToSave): Promise<StoredResponse | undefined> {
  const upsert = responseUpsert(response, 1);
  const result = await db.query<ResponseRow>(`${upsert.sql} RETURNING ${COLUMNS}`, upsert.params);
  return result.rows[0] ? toStoredResponse(result.rows[0]) : undefined;
}

/**
 * saveResponse's statement with its parameters numbered from `firstParam`, for a caller
 * that writes it as part of a larger statement (a turn's messages and its response in
 * one round trip).
 */
export function responseUpsert(response: ResponseToSave, firstParam: number): { sql: string; params: unknown[] } {
  const p = (offset: number) => `$${firstParam + offset}`;
  return {
    sql: `INSERT INTO responses (id, account_id, key_id, agent_id, conversation_id, previous_response_id, last_message_id,
       status, model, request, output, usage, cost_micros, error, metadata, store, completed_at)
     VALUES (${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)}::jsonb, ${p(10)}::jsonb, ${p(11)}::jsonb, ${p(12)}::bigint, ${p(13)}::jsonb, ${p(14)}::jsonb, ${p(15)}::boolean, ${p(16)}::timestamptz)
     ON CONFLICT (id) DO UPDATE SET
       agent_id = EXCLUDED.agent_id, conversation_id = EXCLUDED.conversation_id,
       previous_response_id = EXCLUDED.previous_response_id, last_message_id = EXCLUDED.last_message_id,
       status = EXCLUDED.status, model = EXCLUDED.model, request = EXCLUDED.request, output = EXCLUDED.output,
       usage = EXCLUDED.usage, cost_micros = EXCLUDED.cost_micros, error = EXCLUDED.error,
       metadata = EXCLUDED.metadata, store = EXCLUDED.store, completed_at = EXCLUDED.completed_at
     WHERE responses.account_id = EXCLUDED.account_id AND responses.key_id = EXCLUDED.key_id`,
    params: [
      response.id,
      response.owner.accountId,
      response.owner.keyId,
      response.agentId,
      response.conversationId,
      response.previousResponseId,
      response.lastMessageId,
      response.status,
      response.model,
      JSON.stringify(response.request),
      // The output holds model and tool text Junction did not check at its edge.
      storableJson(response.output),
      json(response.usage),
      response.costMicros,
      json(response.error),
      JSON.stringify(response.metadata ?? {}),
      response.store ?? true,
      response.completedAt,
    ],
  };
}

/** A stored response of `owner`; responses of other keys, and store:false ones, are not found. */
export async function findResponse(db: Queryable, owner: ConversationOwner, id: string): Promise<StoredResponse | undefined> {
  const result = await db.query<ResponseRow>(`SELECT ${COLUMNS} FROM responses WHERE id = $1 AND account_id = $2 AND key_id = $3 AND store`, [id, owner.accountId, owner.keyId]);
  return result.rows[0] ? toStoredResponse(result.rows[0]) : undefined;
}

/** `GET /responses/{id}`: the response or a 404 `not_found`. */
export async function getResponse(db: Queryable, owner: ConversationOwner, id: string): Promise<StoredResponse> {
  const response = await findResponse(db, owner, id);
  if (!response) throw new JunctionError('not_found', `No response found with id '${id}'.`);
  return response;
}

/** The response `previous_response_id` names, or a 404 `previous_response_not_found`. */
export async function findResponseForContinuation(db: Queryable, owner: ConversationOwner, previousResponseId: string): Promise<StoredResponse> {
  const response = await findResponse(db, owner, previousResponseId);
  if (!response) {
    throw new JunctionError('previous_response_not_found', `Previous response with id '${previousResponseId}' not found.`, {
      param: 'previous_response_id',
    });
  }
  return response;
}

/** Deletes the response record only; the conversation messages it produced stay in their tree. */
export async function deleteResponse(db: Queryable, owner: ConversationOwner, id: string): Promise<boolean> {
  const result = await db.query('DELETE FROM responses WHERE id = $1 AND account_id = $2 AND key_id = $3 AND store RETURNING id', [id, owner.accountId, owner.keyId]);
  return result.rows.length > 0;
}
