import type { ModelStreamEvent } from '../../core/model-types.ts';
import { mapSseStream, type SseEventMapping } from '../http/mapped-event-stream.ts';
import type { SseEvent } from '../http/sse-events.ts';
import { UpstreamError } from '../upstream-error.ts';
import { ContentBlockDeltaSchema, ContentBlockStartSchema, ContentBlockStopSchema, type ConverseUsage, MessageStopSchema, StreamMetadataSchema } from './bedrock-wire-schemas.ts';
import { mapConverseUsage, mapStopReason } from './map-converse-response.ts';

type OpenTool = { toolIndex: number; sawArguments: boolean };

/**
 * ConverseStream events (read-event-stream.ts) → canonical stream events.
 *
 * - A text block has no contentBlockStart, only deltas; a tool block starts with its id and
 *   name and streams its input as JSON text.
 * - Tool-call `index` is the ordinal among tool calls, not Bedrock's block index.
 * - messageStop carries the stop reason and metadata, which comes last, the usage: usage
 *   and finish are emitted at metadata. A stream that ends after messageStop without
 *   metadata still finishes (with no usage); one that ends before messageStop was cut short.
 */
export function mapConverseStream(batches: AsyncIterable<SseEvent[]>, id: () => string, model: string): AsyncIterableIterator<ModelStreamEvent> {
  return mapSseStream(batches, new ConverseEventMapping(id, model));
}

class ConverseEventMapping implements SseEventMapping {
  readonly #tools = new Map<number, OpenTool>();
  #toolCount = 0;
  #stopReason: string | null | undefined;
  #stopped = false;
  readonly #id: () => string;
  readonly #model: string;

  /** `id` is read at messageStart: the answer's id comes with the response headers, after the stream is made. */
  constructor(id: () => string, model: string) {
    this.#id = id;
    this.#model = model;
  }

  map(event: SseEvent, out: ModelStreamEvent[]): boolean {
    const json = parseJson(event.data);
    switch (event.event) {
      case 'messageStart':
        out.push({ type: 'response-metadata', id: this.#id(), model: this.#model });
        return false;
      case 'contentBlockStart': {
        const parsed = ContentBlockStartSchema.safeParse(json);
        const tool = parsed.success ? parsed.data.start?.toolUse : undefined;
        if (!parsed.success || tool == null) return false;
        const toolIndex = this.#toolCount++;
        this.#tools.set(parsed.data.contentBlockIndex, { toolIndex, sawArguments: false });
        out.push({ type: 'tool-call-start', index: toolIndex, id: tool.toolUseId, name: tool.name });
        return false;
      }
      case 'contentBlockDelta': {
        const parsed = ContentBlockDeltaSchema.safeParse(json);
        if (!parsed.success) return false;
        const { delta, contentBlockIndex } = parsed.data;
        if (delta.text != null && delta.text !== '') out.push({ type: 'text-delta', delta: delta.text });
        const reasoning = delta.reasoningContent;
        if (reasoning?.text != null && reasoning.text !== '') out.push({ type: 'reasoning-delta', delta: reasoning.text });
        if (reasoning?.signature != null) out.push({ type: 'reasoning-signature', signature: reasoning.signature });
        if (reasoning?.redactedContent != null) out.push({ type: 'reasoning-redacted', data: reasoning.redactedContent });
        const tool = this.#tools.get(contentBlockIndex);
        if (delta.toolUse != null && tool !== undefined && delta.toolUse.input !== '') {
          tool.sawArguments = true;
          out.push({ type: 'tool-call-delta', index: tool.toolIndex, argumentsDelta: delta.toolUse.input });
        }
        return false;
      }
      case 'contentBlockStop': {
        const parsed = ContentBlockStopSchema.safeParse(json);
        if (!parsed.success) return false;
        const tool = this.#tools.get(parsed.data.contentBlockIndex);
        // A tool without arguments streams no input at all; clients still need valid JSON.
        if (tool !== undefined && !tool.sawArguments) out.push({ type: 'tool-call-delta', index: tool.toolIndex, argumentsDelta: '{}' });
        this.#tools.delete(parsed.data.contentBlockIndex);
        return false;
      }
      case 'messageStop': {
        const parsed = MessageStopSchema.safeParse(json);
        this.#stopped = true;
        this.#stopReason = parsed.success ? parsed.data.stopReason : undefined;
        return false;
      }
      case 'metadata': {
        const parsed = StreamMetadataSchema.safeParse(json);
        const usage: ConverseUsage = (parsed.success ? parsed.data.usage : undefined) ?? {};
        if (!this.#stopped) return false;
        out.push({ type: 'usage', usage: mapConverseUsage(usage) });
        out.push({ type: 'finish', finishReason: mapStopReason(this.#stopReason) });
        return true;
      }
      default:
        // New event types are Bedrock's to add: skipped.
        return false;
    }
  }

  end(out: ModelStreamEvent[]): void {
    if (!this.#stopped) {
      throw new UpstreamError('Bedrock stream ended before messageStop', { status: 0, upstreamMessage: 'upstream stream ended before the message was complete' });
    }
    out.push({ type: 'usage', usage: mapConverseUsage({}) });
    out.push({ type: 'finish', finishReason: mapStopReason(this.#stopReason) });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
