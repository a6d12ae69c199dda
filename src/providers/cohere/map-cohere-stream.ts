import type { ModelStreamEvent } from '../../core/model-types.ts';
import { mapSseStream, type SseEventMapping } from '../http/mapped-event-stream.ts';
import type { SseEvent } from '../http/sse-events.ts';
import { UpstreamError } from '../upstream-error.ts';
import { CohereContentItemSchema, CohereStreamEventSchema, CohereToolCallSchema, type CohereStreamEvent } from './cohere-wire-schemas.ts';
import { mapCohereFinishReason, mapCohereUsage } from './map-cohere-response.ts';

type OpenTool = { toolIndex: number; sawArguments: boolean };

/**
 * Cohere v2 chat stream events → canonical stream events.
 *
 * - `message-start` names the answer; `content-delta` carries text (or a reasoning model's
 *   `thinking`), `tool-plan-delta` the plan the model writes before its calls (reasoning).
 * - A tool call opens with `tool-call-start` (id and name), streams its arguments in
 *   `tool-call-delta`s and closes with `tool-call-end`; its canonical `index` is its
 *   ordinal among the answer's tool calls.
 * - `message-end` carries the finish reason and the usage: both are emitted there. A
 *   stream that ends without it was cut short.
 */
export function mapCohereStream(batches: AsyncIterable<SseEvent[]>, model: string): AsyncIterableIterator<ModelStreamEvent> {
  return mapSseStream(batches, new CohereEventMapping(model));
}

class CohereEventMapping implements SseEventMapping {
  readonly #model: string;
  readonly #tools = new Map<number, OpenTool>();
  #toolCount = 0;
  #ended = false;

  constructor(model: string) {
    this.#model = model;
  }

  map(event: SseEvent, out: ModelStreamEvent[]): boolean {
    if (this.#ended || event.data === '[DONE]') return false;
    const parsed = CohereStreamEventSchema.safeParse(parseJson(event.data));
    if (!parsed.success) return false;
    const data = parsed.data;
    switch (data.type ?? event.event) {
      case 'message-start':
        out.push({ type: 'response-metadata', ...(data.id == null ? {} : { id: data.id }), model: this.#model });
        return false;
      case 'content-delta': {
        const content = CohereContentItemSchema.safeParse(data.delta?.message?.content);
        if (!content.success) return false;
        if (content.data.thinking != null && content.data.thinking !== '') out.push({ type: 'reasoning-delta', delta: content.data.thinking });
        if (content.data.text != null && content.data.text !== '') out.push({ type: 'text-delta', delta: content.data.text });
        return false;
      }
      case 'tool-plan-delta': {
        const plan = data.delta?.message?.tool_plan;
        if (plan != null && plan !== '') out.push({ type: 'reasoning-delta', delta: plan });
        return false;
      }
      case 'tool-call-start':
        this.#startTool(data, out);
        return false;
      case 'tool-call-delta': {
        const tool = this.#tools.get(data.index ?? 0);
        const call = CohereToolCallSchema.safeParse(data.delta?.message?.tool_calls);
        const text = call.success ? call.data.function?.arguments : undefined;
        if (tool !== undefined && text != null && text !== '') {
          tool.sawArguments = true;
          out.push({ type: 'tool-call-delta', index: tool.toolIndex, argumentsDelta: text });
        }
        return false;
      }
      case 'tool-call-end': {
        const index = data.index ?? 0;
        const tool = this.#tools.get(index);
        // A tool without parameters may stream no arguments at all; clients still need valid JSON.
        if (tool !== undefined && !tool.sawArguments) out.push({ type: 'tool-call-delta', index: tool.toolIndex, argumentsDelta: '{}' });
        this.#tools.delete(index);
        return false;
      }
      case 'message-end': {
        this.#ended = true;
        const delta = data.delta;
        if (delta?.finish_reason === 'ERROR' && delta.error != null) {
          throw new UpstreamError(`Cohere stream error: ${delta.error}`, { status: 502, retryable: false, upstreamMessage: delta.error });
        }
        out.push({ type: 'usage', usage: mapCohereUsage(delta?.usage) });
        out.push({ type: 'finish', finishReason: mapCohereFinishReason(delta?.finish_reason) });
        return true;
      }
      default:
        // content-start/-end, citations, debug and new event types carry nothing canonical.
        return false;
    }
  }

  end(): void {
    if (!this.#ended) {
      throw new UpstreamError('Cohere stream ended before message-end', { status: 0, upstreamMessage: 'upstream stream ended before the message was complete' });
    }
  }

  #startTool(data: CohereStreamEvent, out: ModelStreamEvent[]): void {
    const call = CohereToolCallSchema.safeParse(data.delta?.message?.tool_calls);
    if (!call.success || call.data.id == null) return;
    const toolIndex = this.#toolCount++;
    const tool: OpenTool = { toolIndex, sawArguments: false };
    this.#tools.set(data.index ?? 0, tool);
    out.push({ type: 'tool-call-start', index: toolIndex, id: call.data.id, name: call.data.function?.name ?? '' });
    const first = call.data.function?.arguments;
    if (first != null && first !== '') {
      tool.sawArguments = true;
      out.push({ type: 'tool-call-delta', index: toolIndex, argumentsDelta: first });
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
