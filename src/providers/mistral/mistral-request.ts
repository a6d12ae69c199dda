import { createHash } from 'node:crypto';
import type { ModelRequest } from '../../core/model-types.ts';
import { convertChatRequest } from '../openai/convert-chat-request.ts';

type JsonObject = Record<string, unknown>;

/** Mistral takes only tool-call ids of exactly nine letters and digits, and names its own so. */
const MISTRAL_TOOL_CALL_ID = /^[A-Za-z0-9]{9}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A tool-call id Mistral accepts: its own ids unchanged, any other (an OpenAI `call_…`, an
 * Anthropic `toolu_…`, an agent's) as nine characters of its hash, so the call and its
 * result, mapped apart, still name each other.
 */
export function mistralToolCallId(id: string): string {
  if (MISTRAL_TOOL_CALL_ID.test(id)) return id;
  const digest = createHash('sha256').update(id).digest();
  let out = '';
  for (let index = 0; index < 9; index += 1) out += BASE62[(digest[index] ?? 0) % 62];
  return out;
}

/**
 * Canonical request → Mistral chat body: OpenAI's chat body (Mistral's API is shaped on
 * it), then what Mistral names otherwise: `seed` is `random_seed`, tool choice `required`
 * is `any`, tool-call ids are nine letters and digits. Mistral refuses fields it does not
 * know, so OpenAI's `stream_options` (Mistral puts the usage in the last chunk anyway),
 * `user` and `reasoning_effort` are left out. Mistral's own fields (`safe_prompt`,
 * `random_seed`, `prompt_mode`, an assistant message's `prefix`) pass through as sent.
 */
export function convertMistralRequest(request: ModelRequest, stream: boolean, providerId: string): JsonObject {
  const body = convertChatRequest(request, { stream, kind: 'mistral', providerId });
  if (body['seed'] !== undefined) {
    body['random_seed'] ??= body['seed'];
    body['seed'] = undefined;
  }
  if (body['tool_choice'] === 'required') body['tool_choice'] = 'any';
  body['stream_options'] = undefined;
  body['user'] = undefined;
  body['reasoning_effort'] = undefined;
  const messages = body['messages'];
  if (Array.isArray(messages)) for (const message of messages) mapToolCallIds(message as JsonObject);
  return body;
}

function mapToolCallIds(message: JsonObject): void {
  if (typeof message['tool_call_id'] === 'string') message['tool_call_id'] = mistralToolCallId(message['tool_call_id']);
  const calls = message['tool_calls'];
  if (!Array.isArray(calls)) return;
  for (const call of calls as JsonObject[]) {
    if (typeof call['id'] === 'string') call['id'] = mistralToolCallId(call['id']);
  }
}
