/**
 * Mistral's reasoning models (Magistral) answer with `content` as a list of chunks, their
 * thinking in `{type: "thinking", thinking: [{type: "text", text}]}` beside `{type: "text",
 * text}`. The OpenAI mappers read `content` as a string and reasoning as
 * `reasoning_content`, so such answers, whole or streamed, are rewritten into that shape
 * first; plain answers pass untouched (and unparsed, in streams).
 */
import type { SseEvent } from '../http/sse-events.ts';

type JsonObject = Record<string, unknown>;

/** An answer body (or a stream chunk) with each choice's chunk-list content as text and reasoning_content. */
export function flattenMistralContent(body: unknown): unknown {
  if (!isObject(body) || !Array.isArray(body['choices'])) return body;
  for (const choice of body['choices']) {
    if (!isObject(choice)) continue;
    for (const key of ['message', 'delta']) {
      const message = choice[key];
      if (isObject(message) && Array.isArray(message['content'])) flattenMessage(message, message['content']);
    }
  }
  return body;
}

function flattenMessage(message: JsonObject, chunks: unknown[]): void {
  let text = '';
  let thinking = '';
  for (const chunk of chunks) {
    if (!isObject(chunk)) continue;
    if (chunk['type'] === 'text' && typeof chunk['text'] === 'string') text += chunk['text'];
    else if (chunk['type'] === 'thinking') thinking += textOf(chunk['thinking']);
  }
  message['content'] = text;
  if (thinking !== '') message['reasoning_content'] = (typeof message['reasoning_content'] === 'string' ? message['reasoning_content'] : '') + thinking;
}

const textOf = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return '';
  return value.map((part) => (isObject(part) && typeof part['text'] === 'string' ? part['text'] : '')).join('');
};

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

const CONTENT_LIST = /"content":\s*\[/;

/** Stream batches with chunk-list content rewritten; a chunk is parsed only when its text shows a list there. */
export async function* flattenMistralStream(batches: AsyncIterable<SseEvent[]>): AsyncIterable<SseEvent[]> {
  for await (const batch of batches) {
    yield batch.map((event) => (CONTENT_LIST.test(event.data) ? { ...event, data: rewrite(event.data) } : event));
  }
}

function rewrite(data: string): string {
  try {
    return JSON.stringify(flattenMistralContent(JSON.parse(data)));
  } catch {
    return data;
  }
}
