import type { ModelStreamEvent, Usage } from '../../core/model-types.ts';
import { toChatFinishReason, toChatUsage } from './render-chat-response.ts';

type Chunk = Record<string, unknown>;

/**
 * Canonical stream events → `chat.completion.chunk` objects, in OpenAI's order: a
 * first chunk with the role, content / reasoning / tool-call deltas, a chunk with the
 * finish reason, then (with include_usage) a chunk with empty choices and usage.
 * `extra` fields (the Agents API's conversation and message ids) go on every chunk.
 */
export class ChatChunkEncoder {
  readonly #base: Chunk;
  #sentRole = false;
  #finishReason: string | undefined;
  #usage: Usage | undefined;

  constructor(meta: { id: string; model: string; created: number; provider: string }, extra: Record<string, unknown> = {}) {
    this.#base = { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, provider: meta.provider, ...extra };
  }

  /** Chunks to send for one event (often one, sometimes none). */
  encode(event: ModelStreamEvent): Chunk[] {
    switch (event.type) {
      case 'text-delta':
        return [this.#delta({ content: event.delta })];
      case 'reasoning-delta':
        return [this.#delta({ reasoning: event.delta })];
      case 'tool-call-start':
        return [this.#delta({ tool_calls: [{ index: event.index, id: event.id, type: 'function', function: { name: event.name, arguments: '' } }] })];
      case 'tool-call-delta':
        return [this.#delta({ tool_calls: [{ index: event.index, function: { arguments: event.argumentsDelta } }] })];
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
  finish(costMicros: number, includeUsage: boolean, usage: Usage | undefined = this.#usage): Chunk[] {
    const chunks: Chunk[] = [];
    if (!this.#sentRole) chunks.push(this.#delta({ content: '' }));
    chunks.push({ ...this.#base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: this.#finishReason ?? 'stop' }] });
    if (includeUsage && usage) chunks.push({ ...this.#base, choices: [], usage: toChatUsage(usage, costMicros) });
    return chunks;
  }

  /** A usage chunk alone (`choices: []`): what a stream that failed midway was billed, before its error. */
  usageOnly(costMicros: number, usage: Usage): Chunk {
    return { ...this.#base, choices: [], usage: toChatUsage(usage, costMicros) };
  }

  #delta(delta: Record<string, unknown>): Chunk {
    const withRole = this.#sentRole ? delta : { role: 'assistant', ...delta };
    this.#sentRole = true;
    return { ...this.#base, choices: [{ index: 0, delta: withRole, logprobs: null, finish_reason: null }] };
  }
}
