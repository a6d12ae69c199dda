import type { JunctionError } from '../../core/errors.ts';
import type { FinishReason, ModelStreamEvent, Usage } from '../../core/model-types.ts';
import { errorBody } from '../../http/error-shapes.ts';
import {
  type AnthropicContentBlock,
  type AnthropicMessageOut,
  type AnthropicStopReason,
  type AnthropicUsageOut,
  messageId,
  renderStopReason,
  renderUsage,
  stopSequenceFor,
} from './render-messages-response.ts';

type Delta = { type: 'text_delta'; text: string } | { type: 'thinking_delta'; thinking: string } | { type: 'signature_delta'; signature: string } | { type: 'input_json_delta'; partial_json: string };

export type MessagesStreamPayload =
  | { type: 'message_start'; message: AnthropicMessageOut }
  | { type: 'ping' }
  | { type: 'content_block_start'; index: number; content_block: AnthropicContentBlock }
  | { type: 'content_block_delta'; index: number; delta: Delta }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta';
      delta: { stop_reason: AnthropicStopReason; stop_sequence: string | null };
      usage: AnthropicUsageOut;
    }
  | { type: 'message_stop' }
  | { type: 'error'; error: { type: string; message: string } };

/** One SSE frame: `event: <event>` and `data: <JSON of data>`; the event name equals data.type. */
export type MessagesSseEvent = { event: MessagesStreamPayload['type']; data: MessagesStreamPayload };

export type MessagesStreamOptions = {
  /** The catalog id the client asked for. */
  model: string;
  /** Shown in message_start before real usage exists (final numbers come in message_delta). */
  inputTokensEstimate?: number;
  stopSequences?: string[];
};

/** `signed`: a thinking block that got its signature is complete; more reasoning starts a new one. */
type OpenBlock = { kind: 'text' } | { kind: 'thinking'; signed: boolean } | { kind: 'tool'; toolIndex: number };

/**
 * Canonical stream events → Anthropic SSE events, in Anthropic's order:
 * message_start, ping, then per block content_block_start / _delta… / _stop with
 * indexes 0, 1, 2…, then message_delta (stop reason and final usage) and message_stop.
 *
 * Anthropic blocks cannot interleave, so any change of kind (reasoning → text, text →
 * tool call, one tool call → the next) closes the open block. A reasoning signature
 * after text (Gemini puts signatures next to answers) opens its own thinking block.
 * A tool-call delta for a tool whose block was already closed (no adapter of ours
 * interleaves tool calls) is still sent against that tool's block index rather than lost.
 * Usage arrives only before `finish`, so message_start carries the caller's estimate.
 */
export class MessagesStreamEncoder {
  private readonly options: MessagesStreamOptions;
  private started = false;
  private finished = false;
  private nextIndex = 0;
  private open: (OpenBlock & { index: number }) | undefined;
  private readonly toolBlocks = new Map<number, number>();
  private usage: Usage | undefined;
  private costMicros: number | undefined;

  constructor(options: MessagesStreamOptions) {
    this.options = options;
  }

  /** message_start and ping; sent by the first push() anyway, call it to flush headers early. */
  start(id?: string): MessagesSseEvent[] {
    if (this.started) return [];
    this.started = true;
    const message: AnthropicMessageOut = {
      id: messageId(id),
      type: 'message',
      role: 'assistant',
      model: this.options.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: this.options.inputTokensEstimate ?? 0,
        output_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    };
    return [frame({ type: 'message_start', message }), frame({ type: 'ping' })];
  }

  /** The cost to report in the final message_delta usage (known only after metering). */
  setCost(costMicros: number): void {
    this.costMicros = costMicros;
  }

  push(event: ModelStreamEvent): MessagesSseEvent[] {
    if (this.finished) return [];
    const out = this.start(event.type === 'response-metadata' ? event.id : undefined);
    switch (event.type) {
      case 'response-metadata':
        break;
      case 'text-delta':
        if (event.delta === '') break;
        out.push(...this.ensureOpen('text'), this.delta({ type: 'text_delta', text: event.delta }));
        break;
      case 'reasoning-delta':
        if (event.delta === '') break;
        if (this.open?.kind === 'thinking' && this.open.signed) out.push(...this.close());
        out.push(...this.ensureOpen('thinking'), this.delta({ type: 'thinking_delta', thinking: event.delta }));
        break;
      case 'reasoning-signature':
        out.push(...this.ensureOpen('thinking'), this.delta({ type: 'signature_delta', signature: event.signature }));
        if (this.open?.kind === 'thinking') this.open.signed = true;
        break;
      case 'reasoning-redacted': {
        out.push(...this.close());
        const index = this.nextIndex++;
        out.push(frame({ type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: event.data } }), frame({ type: 'content_block_stop', index }));
        break;
      }
      case 'tool-call-start': {
        out.push(...this.close());
        const index = this.nextIndex++;
        this.open = { kind: 'tool', toolIndex: event.index, index };
        this.toolBlocks.set(event.index, index);
        out.push(
          frame({
            type: 'content_block_start',
            index,
            content_block: { type: 'tool_use', id: event.id, name: event.name, input: {} },
          }),
        );
        break;
      }
      case 'tool-call-delta': {
        const index = this.toolBlocks.get(event.index);
        if (index === undefined || event.argumentsDelta === '') break;
        out.push(frame({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: event.argumentsDelta } }));
        break;
      }
      case 'usage':
        this.usage = event.usage;
        break;
      case 'finish':
        out.push(...this.finish(event.finishReason));
        break;
    }
    return out;
  }

  /** An `event: error` frame, for failures after the SSE headers went out; the stream then ends. */
  errorEvent(error: JunctionError): MessagesSseEvent {
    this.finished = true;
    const body = errorBody(error, 'anthropic') as { error: { type: string } };
    return frame({ type: 'error', error: { type: body.error.type, message: error.message } });
  }

  private finish(finishReason: FinishReason): MessagesSseEvent[] {
    this.finished = true;
    const stopReason = renderStopReason(finishReason);
    const usage = renderUsage(this.usage ?? { inputTokens: 0, outputTokens: 0 }, this.costMicros);
    return [
      ...this.close(),
      frame({
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: stopSequenceFor(stopReason, this.options.stopSequences) },
        usage,
      }),
      frame({ type: 'message_stop' }),
    ];
  }

  private ensureOpen(kind: 'text' | 'thinking'): MessagesSseEvent[] {
    if (this.open?.kind === kind) return [];
    const out = this.close();
    const index = this.nextIndex++;
    this.open = kind === 'text' ? { kind, index } : { kind, signed: false, index };
    const block: AnthropicContentBlock = kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' };
    out.push(frame({ type: 'content_block_start', index, content_block: block }));
    return out;
  }

  private close(): MessagesSseEvent[] {
    if (this.open === undefined) return [];
    const index = this.open.index;
    this.open = undefined;
    return [frame({ type: 'content_block_stop', index })];
  }

  private delta(delta: Delta): MessagesSseEvent {
    // ensureOpen ran just before, so a block is open.
    return frame({ type: 'content_block_delta', index: this.open?.index ?? 0, delta });
  }
}

function frame(data: MessagesStreamPayload): MessagesSseEvent {
  return { event: data.type, data };
}
