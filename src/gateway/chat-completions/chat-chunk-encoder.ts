import type { ModelStreamEvent, Usage } from '../../core/model-types.ts';
import { chatUsageJson, completionOpening, toChatFinishReason } from './render-chat-response.ts';

/**
 * Canonical stream events → `chat.completion.chunk` JSON texts, in OpenAI's order: a
 * first chunk with the role, content / reasoning / tool-call deltas, a chunk with the
 * finish reason, then (with include_usage) a chunk with empty choices and usage.
 * `extra` fields (the Agents API's conversation and message ids) go on every chunk.
 *
 * Chunks come out serialized: the fields every chunk repeats are serialized once, and
 * a text delta costs one JSON.stringify of its text rather than a spread and a
 * serialization of the whole chunk (a stream profile's largest own cost).
 */
export class ChatChunkEncoder {
  /** `{"id":…,"object":"chat.completion.chunk",…,` — each chunk's opening fields. */
  readonly #prefix: string;
  #sentRole = false;
  #finishReason: string | undefined;
  #usage: Usage | undefined;

  constructor(meta: { id: string; model: string; created: number; provider: string }, extra?: Record<string, unknown>) {
    this.#prefix = completionOpening('chat.completion.chunk', meta, extra);
  }

  /** Chunks to send for one event (often one, sometimes none). */
  encode(event: ModelStreamEvent): string[] {
    switch (event.type) {
      case 'text-delta':
        return [this.#delta(`"content":${JSON.stringify(event.delta)}`)];
      case 'reasoning-delta':
        return [this.#delta(`"reasoning":${JSON.stringify(event.delta)}`)];
      case 'tool-call-start':
        return [this.#delta(`"tool_calls":${JSON.stringify([{ index: event.index, id: event.id, type: 'function', function: { name: event.name, arguments: '' } }])}`)];
      case 'tool-call-delta':
        return [this.#delta(`"tool_calls":${JSON.stringify([{ index: event.index, function: { arguments: event.argumentsDelta } }])}`)];
      case 'usage':
        this.#usage = event.usage;
        return [];
      case 'finish':
        this.#finishReason = toChatFinishReason(event.finishReason);
        return [];
      default:
        return [];
    }
  }

  /** The closing chunks, once usage and cost are known. */
  finish(costMicros: number, includeUsage: boolean, usage: Usage | undefined = this.#usage): string[] {
    const chunks: string[] = [];
    if (!this.#sentRole) chunks.push(this.#delta('"content":""'));
    chunks.push(`${this.#prefix}"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":${JSON.stringify(this.#finishReason ?? 'stop')}}]}`);
    if (includeUsage && usage) chunks.push(this.usageOnly(costMicros, usage));
    return chunks;
  }

  /** A usage chunk alone (`choices: []`): what a stream that failed midway was billed, before its error. */
  usageOnly(costMicros: number, usage: Usage): string {
    return `${this.#prefix}"choices":[],"usage":${chatUsageJson(usage, costMicros)}}`;
  }

  /** A delta chunk; `fields` is the delta object's serialized content, without braces. */
  #delta(fields: string): string {
    const delta = this.#sentRole ? fields : `"role":"assistant",${fields}`;
    this.#sentRole = true;
    return `${this.#prefix}"choices":[{"index":0,"delta":{${delta}},"logprobs":null,"finish_reason":null}]}`;
  }
}
