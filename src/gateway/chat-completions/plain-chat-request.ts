import { isPlainRecord } from '../../core/plain-record.ts';
import type { ChatRequest } from './chat-request-schema.ts';

/** Fields a plain request may carry; anything else goes through the schema. */
const PLAIN_FIELDS = new Set(['model', 'messages', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'stream', 'stream_options', 'user']);
const PLAIN_MESSAGE_FIELDS = new Set(['role', 'content', 'name']);
const PLAIN_ROLES = new Set(['system', 'developer', 'user', 'assistant']);
const STREAM_OPTION_FIELDS = new Set(['include_usage']);

const isPositiveIntegerOrNull = (value: unknown): boolean => value === null || (Number.isSafeInteger(value) && (value as number) > 0);
const isNumberInOrNull = (value: unknown, max: number): boolean => value === null || (typeof value === 'number' && value >= 0 && value <= max);
const hasOnly = (record: Record<string, unknown>, fields: Set<string>): boolean => {
  for (const key in record) if (!fields.has(key)) return false;
  return true;
};

/**
 * The request nearly every chat call is (text messages, a model, a few sampling fields),
 * checked by hand: exactly what ChatRequestSchema accepts unchanged, so the schema only
 * sees the rest (tools, parts, fallbacks, errors) and produces their messages. The
 * schema's parse was the gateway's largest own cost per JSON call after the network.
 * A test holds the two to each other over generated requests.
 */
export function isPlainChatRequest(body: unknown): body is ChatRequest {
  if (!isPlainRecord(body) || !hasOnly(body, PLAIN_FIELDS)) return false;
  if (typeof body.model !== 'string' || body.model.length === 0) return false;
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  for (const message of messages) {
    if (!isPlainRecord(message) || !hasOnly(message, PLAIN_MESSAGE_FIELDS)) return false;
    if (typeof message.role !== 'string' || !PLAIN_ROLES.has(message.role) || typeof message.content !== 'string') return false;
    if ('name' in message && typeof message.name !== 'string') return false;
  }
  if ('max_tokens' in body && !isPositiveIntegerOrNull(body.max_tokens)) return false;
  if ('max_completion_tokens' in body && !isPositiveIntegerOrNull(body.max_completion_tokens)) return false;
  if ('temperature' in body && !isNumberInOrNull(body.temperature, 2)) return false;
  if ('top_p' in body && !isNumberInOrNull(body.top_p, 1)) return false;
  if ('stream' in body && body.stream !== null && typeof body.stream !== 'boolean') return false;
  if ('user' in body && typeof body.user !== 'string') return false;
  if ('stream_options' in body && body.stream_options !== null) {
    const options = body.stream_options;
    if (!isPlainRecord(options) || !hasOnly(options, STREAM_OPTION_FIELDS)) return false;
    if ('include_usage' in options && typeof options.include_usage !== 'boolean') return false;
  }
  return true;
}
