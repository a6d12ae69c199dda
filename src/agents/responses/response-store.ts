import { z } from 'zod';
import { type Continuation, recordTurn } from '../../conversations/conversation-service.ts';
import { type ConversationOwner, type NewMessage, newMessageId } from '../../conversations/conversation-repository.ts';
import { responseUpsert, saveResponse, type StoredResponse } from '../../conversations/response-repository.ts';
import type { ModelMessage } from '../../core/model-types.ts';
import type { Database, Queryable } from '../../store/database.ts';
import type { AgentRunResult } from '../agent-runner.ts';
import { runMetadata } from '../run-metadata.ts';
import type { CreateResponseRequest } from './response-request-schema.ts';
import type { ResponseResource, ResponseSettings } from './response-resource.ts';

/**
 * Responses in the conversation tree. A finished response appends its turn (the new
 * input, then every message the run produced, each tagged with the response id) and
 * saves the response row in the same statement (or transaction), its `last_message_id` being where a
 * `previous_response_id` continues. A failed response is saved without messages, so
 * it can be read but not continued.
 *
 * `store: false` writes nothing at all, neither the row nor the turn's messages (the
 * point of the flag is that the content is not retained); usage rows for billing are
 * written as for any call. Continuing from such a response is a 404.
 */

export type ResponseToStore = {
  owner: ConversationOwner;
  agentId: string;
  continuation: Continuation;
  body: CreateResponseRequest;
  settings: ResponseSettings;
  resource: ResponseResource;
  costMicros: number;
};

/** The `request` column: the input as sent plus what `GET` serves back that has no column of its own. */
const storedRequest = (entry: ResponseToStore) => ({
  input: entry.body.input,
  settings: entry.settings,
  created_at: entry.resource.created_at,
  incomplete_details: entry.resource.incomplete_details,
});

const StoredRequestSchema = z.object({ settings: z.record(z.string(), z.unknown()), created_at: z.number().int(), incomplete_details: z.object({ reason: z.string() }).nullish() }).loose();

export async function storeFinishedResponse(
  db: Database,
  entry: ResponseToStore,
  turn: { input: ModelMessage[]; result: AgentRunResult },
  /** More work for the same transaction (a background run's fenced finish). */
  alsoWithin?: (tx: Queryable) => Promise<void>,
): Promise<void> {
  const messages = turnMessages(turn.input, turn.result, entry.resource.id);
  const saved = (lastMessageId: string) => ({ ...row(entry), model: turn.result.model, conversationId: entry.continuation.conversation.id, lastMessageId });
  if (!alsoWithin) {
    // The usual case, a foreground response: the turn and its row in one statement (one
    // round trip, no transaction). The messages' ids are chosen here so the row can name the last.
    const withIds = messages.map((message) => ({ ...message, id: newMessageId() }));
    const lastMessageId = (withIds.at(-1) as { id: string }).id;
    await recordTurn(db, { continuation: entry.continuation, agentId: entry.agentId, messages: withIds, alongside: (first) => responseUpsert(saved(lastMessageId), first) });
    return;
  }
  await recordTurn(db, {
    continuation: entry.continuation,
    agentId: entry.agentId,
    messages,
    withinTransaction: async (tx, recorded) => {
      await saveResponse(tx, saved(recorded.lastMessageId));
      await alsoWithin(tx);
    },
  });
}

/** A `generate: false` warm-up: its input joins the tree with no output, so a later request chains from it. */
export async function storeWarmUpResponse(db: Database, entry: ResponseToStore, input: ModelMessage[]): Promise<void> {
  const { resource } = entry;
  await recordTurn(db, {
    continuation: entry.continuation,
    agentId: entry.agentId,
    messages: input.map((message) => ({ message, responseId: resource.id })),
    withinTransaction: async (tx, recorded) => {
      await saveResponse(tx, { ...row(entry), model: null, conversationId: recorded.conversation.id, lastMessageId: recorded.lastMessageId });
    },
  });
}

export async function storeFailedResponse(db: Queryable, entry: ResponseToStore): Promise<void> {
  // The conversation exists only if an earlier turn created it.
  await saveResponse(db, { ...row(entry), model: null, conversationId: entry.continuation.isNew ? null : entry.continuation.conversation.id, lastMessageId: null });
}

const row = (entry: ResponseToStore) => ({
  id: entry.resource.id,
  owner: entry.owner,
  agentId: entry.agentId,
  previousResponseId: entry.resource.previous_response_id,
  status: entry.resource.status,
  request: storedRequest(entry),
  output: entry.resource.output,
  usage: entry.resource.usage,
  costMicros: entry.costMicros,
  error: entry.resource.error,
  metadata: entry.resource.metadata,
  store: true,
  completedAt: entry.resource.completed_at === null ? null : new Date(entry.resource.completed_at * 1000),
});

/** The new turn as tree nodes; the final assistant message carries the run's usage and cost, as in the chat endpoint. */
function turnMessages(input: ModelMessage[], result: AgentRunResult, responseId: string): NewMessage[] {
  const lastAssistant = result.messages.findLastIndex((message) => message.role === 'assistant');
  return [
    ...input.map((message) => ({ message, responseId })),
    ...result.messages.map((message, index) => ({
      message,
      responseId,
      agentId: result.messageAgents[index] ?? null,
      model: message.role === 'assistant' ? result.model : null,
      // The run's usage rows carry its id: the console links each turn to what it cost; feedback counts for the version that answered.
      metadata: runMetadata(result, result.messageAgents[index]),
      ...(index === lastAssistant && { usage: { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens }, costMicros: result.costMicros }),
    })),
  ];
}

/** `GET /responses/{id}`: the stored response as a ResponseResource. */
export function storedResource(stored: StoredResponse): Record<string, unknown> {
  const request = StoredRequestSchema.safeParse(stored.request);
  const settings = request.success ? request.data.settings : {};
  return {
    ...settings,
    id: stored.id,
    object: 'response',
    created_at: request.success ? request.data.created_at : Math.floor(stored.createdAt.getTime() / 1000),
    completed_at: stored.completedAt === null ? null : Math.floor(stored.completedAt.getTime() / 1000),
    status: stored.status,
    incomplete_details: (request.success ? request.data.incomplete_details : null) ?? null,
    previous_response_id: stored.previousResponseId,
    output: stored.output,
    error: stored.error,
    usage: stored.usage,
  };
}
