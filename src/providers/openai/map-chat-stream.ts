/**
 * OpenAI chat-completions SSE chunks → canonical ModelStreamEvents.
 *
 * Order produced: `response-metadata` once (first chunk), then `reasoning-delta`,
 * `text-delta`, `tool-call-start` / `tool-call-delta` as they arrive, then `usage`
 * (when the upstream reported any) and `finish` last. Usage and finish are held back
 * to the end because OpenAI sends `finish_reason` one chunk before the usage-only
 * chunk (`choices: []`), and some servers (Groq, Mistral) put usage elsewhere.
 *
 * Tool calls are keyed by the upstream `index`; servers that send whole tool calls
 * without an index (Gemini's OpenAI layer, older Ollama) get the next free index.
 */
import type { ModelStreamEvent, Usage } from '../../core/model-types.ts';
import { mapSseStream, type SseEventMapping } from '../http/mapped-event-stream.ts';
import type { SseEvent } from '../http/sse-events.ts';
import { UpstreamError } from '../upstream-error.ts';
import { generateToolCallId, mapFinishReason, mapUsage } from './map-chat-response.ts';
import { readOpenAIStreamError } from './openai-error.ts';
import { OpenAIChatChunkSchema, type OpenAIChatChunk } from './openai-wire-schemas.ts';
import { isPlainDeltaChunk } from './plain-delta-chunk.ts';
import { TextDeltaScanner } from './text-delta-scanner.ts';

type ToolCallState = { index: number; id: string | undefined; name: string | undefined; started: boolean; pendingArguments: string };
type ChunkToolCall = NonNullable<NonNullable<NonNullable<OpenAIChatChunk['choices']>[number]['delta']>['tool_calls']>[number];

export function mapChatStream(batches: AsyncIterable<SseEvent[]>): AsyncIterableIterator<ModelStreamEvent> {
  return mapSseStream(batches, new ChatChunkMapping());
}

class ChatChunkMapping implements SseEventMapping {
  #sentMetadata = false;
  #finishRaw: string | undefined;
  #usage: Usage | undefined;
  /** [DONE] seen: later events are read (to the body's end, keeping the connection) but ignored. */
  #done = false;
  readonly #toolCalls = new Map<number, ToolCallState>();
  readonly #textDeltas = new TextDeltaScanner();

  map(event: SseEvent, out: ModelStreamEvent[]): boolean {
    // Read on to the end of the body rather than stopping: stopping early destroys the
    // upstream body (an AbortError with a stack trace per call) and loses the keep-alive
    // connection. Servers end the response right after [DONE].
    if (this.#done) return false;
    if (event.data === '[DONE]') {
      this.#done = true;
      return false;
    }
    // Most chunks are read without a parse: the first when it is a text delta, then text
    // deltas, the finish and the usage under the same opening (text-delta-scanner.ts).
    if (this.#sentMetadata ? this.#readLaterChunk(event.data, out) : this.#readFirstChunk(event.data, out)) return false;
    const chunk = parseChunk(event.data);
    if (chunk === undefined) return false;
    if (chunk.error !== undefined && chunk.error !== null) {
      throw new UpstreamError(`upstream stream error: ${readOpenAIStreamError(chunk.error)}`, {
        status: 502,
        retryable: false,
        upstreamMessage: readOpenAIStreamError(chunk.error),
      });
    }
    this.#textDeltas.learn(event.data);
    if (!this.#sentMetadata) {
      this.#sentMetadata = true;
      out.push({
        type: 'response-metadata',
        ...(chunk.id ? { id: chunk.id } : {}),
        ...(chunk.model ? { model: chunk.model } : {}),
      });
    }
    const reportedUsage = chunk.usage ?? chunk.x_groq?.usage;
    if (reportedUsage) this.#usage = mapUsage(reportedUsage);

    // n > 1 has no place in the canonical stream: only the first choice is followed.
    const choice = chunk.choices?.[0];
    const delta = choice?.delta;
    const reasoning = delta?.reasoning_content ?? delta?.reasoning;
    if (reasoning) out.push({ type: 'reasoning-delta', delta: reasoning });
    const text = delta?.content ?? delta?.refusal;
    if (text) out.push({ type: 'text-delta', delta: text });
    for (const call of delta?.tool_calls ?? []) mapToolCallDelta(call, this.#toolCalls, out);
    if (choice?.finish_reason) this.#finishRaw = choice.finish_reason;
    return false;
  }

  /** A chunk after the first when it is a text delta, the finish or the usage under the learned opening; false: parse it. */
  #readLaterChunk(data: string, out: ModelStreamEvent[]): boolean {
    const text = this.#textDeltas.read(data);
    if (text !== undefined) {
      if (text) out.push({ type: 'text-delta', delta: text });
      return true;
    }
    const finishReason = this.#textDeltas.readFinish(data);
    if (finishReason !== undefined) {
      this.#finishRaw = finishReason;
      return true;
    }
    const usage = this.#textDeltas.readUsage(data);
    if (usage === undefined) return false;
    this.#usage = mapUsage(usage);
    return true;
  }

  /**
   * The stream's first chunk when it is a plain text delta (OpenAI's role chunk): its
   * metadata from its opening and its text from the scanner, without parsing it whole.
   * False when it is anything else: the caller parses it (the opening, if learned, stays),
   * and reports its metadata.
   */
  #readFirstChunk(data: string, out: ModelStreamEvent[]): boolean {
    const metadata = this.#textDeltas.learnMetadata(data);
    if (metadata === undefined) return false;
    const text = this.#textDeltas.read(data);
    if (text === undefined) return false;
    this.#sentMetadata = true;
    out.push({
      type: 'response-metadata',
      ...(metadata.id ? { id: metadata.id } : {}),
      ...(metadata.model ? { model: metadata.model } : {}),
    });
    if (text) out.push({ type: 'text-delta', delta: text });
    return true;
  }

  end(out: ModelStreamEvent[]): void {
    if (!this.#done && this.#finishRaw === undefined) {
      // The body ended cleanly but the answer did not: a proxy or the server cut it short.
      throw new UpstreamError('upstream stream ended before the response was complete', {
        status: 0,
        upstreamMessage: 'upstream stream ended before the response was complete',
      });
    }
    // A tool call whose name never arrived is still announced so its arguments are not lost.
    for (const state of this.#toolCalls.values()) startIfReady(state, true, out);
    if (this.#usage !== undefined) out.push({ type: 'usage', usage: this.#usage });
    out.push({ type: 'finish', finishReason: mapFinishReason(this.#finishRaw) });
  }
}

function mapToolCallDelta(call: ChunkToolCall, toolCalls: Map<number, ToolCallState>, queue: ModelStreamEvent[]): void {
  const upstreamIndex = call.index ?? -1 - toolCalls.size;
  let state = toolCalls.get(upstreamIndex);
  if (state === undefined) {
    state = { index: toolCalls.size, id: undefined, name: undefined, started: false, pendingArguments: '' };
    toolCalls.set(upstreamIndex, state);
  }
  if (call.id) state.id ??= call.id;
  if (call.function?.name) state.name ??= call.function.name;
  state.pendingArguments += call.function?.arguments ?? '';
  startIfReady(state, false, queue);
}

function startIfReady(state: ToolCallState, force: boolean, queue: ModelStreamEvent[]): void {
  if (!state.started && (state.name !== undefined || force)) {
    state.started = true;
    state.id ??= generateToolCallId();
    queue.push({ type: 'tool-call-start', index: state.index, id: state.id, name: state.name ?? '' });
  }
  if (state.started && state.pendingArguments !== '') {
    queue.push({ type: 'tool-call-delta', index: state.index, argumentsDelta: state.pendingArguments });
    state.pendingArguments = '';
  }
}

function parseChunk(data: string): OpenAIChatChunk | undefined {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new UpstreamError(`upstream sent a stream event that is not JSON: ${data.slice(0, 200)}`, {
      status: 502,
      retryable: false,
      upstreamMessage: 'upstream sent a malformed stream event',
    });
  }
  if (isPlainDeltaChunk(json)) return json;
  const parsed = OpenAIChatChunkSchema.safeParse(json);
  // Shapes we do not understand (vendor keep-alives, extra event kinds) are skipped, not fatal.
  return parsed.success ? parsed.data : undefined;
}
