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
import type { SseEvent } from '../http/sse-events.ts';
import { UpstreamError } from '../upstream-error.ts';
import { generateToolCallId, mapFinishReason, mapUsage } from './map-chat-response.ts';
import { readOpenAIStreamError } from './openai-error.ts';
import { OpenAIChatChunkSchema, type OpenAIChatChunk } from './openai-wire-schemas.ts';
import { isPlainDeltaChunk } from './plain-delta-chunk.ts';

type ToolCallState = { index: number; id: string | undefined; name: string | undefined; started: boolean; pendingArguments: string };
type ChunkToolCall = NonNullable<NonNullable<NonNullable<OpenAIChatChunk['choices']>[number]['delta']>['tool_calls']>[number];

export async function* mapChatStream(batches: AsyncIterable<SseEvent[]>): AsyncGenerator<ModelStreamEvent> {
  let sentMetadata = false;
  let finishRaw: string | undefined;
  let usage: Usage | undefined;
  let done = false;
  const toolCalls = new Map<number, ToolCallState>();

  for await (const batch of batches) for (const event of batch) {
    // Read on to the end of the body rather than breaking out: leaving the loop early
    // destroys the upstream body (an AbortError with a stack trace per call) and
    // loses the keep-alive connection. Servers end the response right after [DONE].
    if (done) continue;
    if (event.data === '[DONE]') {
      done = true;
      continue;
    }
    const chunk = parseChunk(event.data);
    if (chunk === undefined) continue;
    if (chunk.error !== undefined && chunk.error !== null) {
      throw new UpstreamError(`upstream stream error: ${readOpenAIStreamError(chunk.error)}`, {
        status: 502,
        retryable: false,
        upstreamMessage: readOpenAIStreamError(chunk.error),
      });
    }
    if (!sentMetadata) {
      sentMetadata = true;
      yield {
        type: 'response-metadata',
        ...(chunk.id ? { id: chunk.id } : {}),
        ...(chunk.model ? { model: chunk.model } : {}),
      };
    }
    const reportedUsage = chunk.usage ?? chunk.x_groq?.usage;
    if (reportedUsage) usage = mapUsage(reportedUsage);

    // n > 1 has no place in the canonical stream: only the first choice is followed.
    const choice = chunk.choices?.[0];
    const delta = choice?.delta;
    const reasoning = delta?.reasoning_content ?? delta?.reasoning;
    if (reasoning) yield { type: 'reasoning-delta', delta: reasoning };
    const text = delta?.content ?? delta?.refusal;
    if (text) yield { type: 'text-delta', delta: text };
    for (const call of delta?.tool_calls ?? []) yield* mapToolCallDelta(call, toolCalls);
    if (choice?.finish_reason) finishRaw = choice.finish_reason;
  }

  if (!done && finishRaw === undefined) {
    // The body ended cleanly but the answer did not: a proxy or the server cut it short.
    throw new UpstreamError('upstream stream ended before the response was complete', {
      status: 0,
      upstreamMessage: 'upstream stream ended before the response was complete',
    });
  }
  // A tool call whose name never arrived is still announced so its arguments are not lost.
  for (const state of toolCalls.values()) yield* startIfReady(state, true);
  if (usage !== undefined) yield { type: 'usage', usage };
  yield { type: 'finish', finishReason: mapFinishReason(finishRaw) };
}

function* mapToolCallDelta(call: ChunkToolCall, toolCalls: Map<number, ToolCallState>): Generator<ModelStreamEvent> {
  const upstreamIndex = call.index ?? -1 - toolCalls.size;
  let state = toolCalls.get(upstreamIndex);
  if (state === undefined) {
    state = { index: toolCalls.size, id: undefined, name: undefined, started: false, pendingArguments: '' };
    toolCalls.set(upstreamIndex, state);
  }
  if (call.id) state.id ??= call.id;
  if (call.function?.name) state.name ??= call.function.name;
  state.pendingArguments += call.function?.arguments ?? '';
  yield* startIfReady(state, false);
}

function* startIfReady(state: ToolCallState, force: boolean): Generator<ModelStreamEvent> {
  if (!state.started && (state.name !== undefined || force)) {
    state.started = true;
    state.id ??= generateToolCallId();
    yield { type: 'tool-call-start', index: state.index, id: state.id, name: state.name ?? '' };
  }
  if (state.started && state.pendingArguments !== '') {
    yield { type: 'tool-call-delta', index: state.index, argumentsDelta: state.pendingArguments };
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
