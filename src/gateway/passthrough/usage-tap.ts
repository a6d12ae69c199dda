import { createParser, type EventSourceParser } from 'eventsource-parser';
import { z } from 'zod';
import type { Usage } from '../../core/model-types.ts';

/**
 * What a pass-through response reported: tokens, the upstream model that used them, and
 * the id of the Response or Run they belong to (its usage is billed once per id, however
 * often it is read: the usage row's id derives from it).
 */
export type TappedUsage = {
  usage: Usage;
  upstreamModel: string | undefined;
  objectId: string | undefined;
  /** The object's own `created_at`: every read of it dates its billing row alike, so the row is written once. */
  objectCreatedAt: Date | undefined;
};

/** A JSON answer larger than this is not parsed for usage (file contents, big lists). */
const MAX_JSON_BYTES = 16 * 1024 * 1024;

/** Responses API usage (`response.usage`). Lenient: only what billing needs. */
const ResponsesUsageSchema = z
  .object({
    input_tokens: z.number(),
    output_tokens: z.number(),
    input_tokens_details: z.object({ cached_tokens: z.number().nullish() }).loose().nullish(),
    output_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).loose().nullish(),
  })
  .loose();

/** Assistants run usage (`run.usage`, chat-completions style). */
const RunUsageSchema = z
  .object({
    prompt_tokens: z.number(),
    completion_tokens: z.number(),
    prompt_token_details: z.object({ cached_tokens: z.number().nullish() }).loose().nullish(),
  })
  .loose();

const ReportSchema = z
  .object({ id: z.string().nullish(), object: z.string().nullish(), model: z.string().nullish(), created_at: z.number().int().nonnegative().nullish(), usage: z.unknown() })
  .loose();

/** Run states after which `usage` is final. */
const TERMINAL_RUN_EVENTS = new Set(['thread.run.completed', 'thread.run.failed', 'thread.run.incomplete', 'thread.run.cancelled', 'thread.run.expired']);
const TERMINAL_RESPONSE_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Reads token usage from a copy of a pass-through response while the original bytes go
 * to the client untouched (the route writes each chunk first, then hands it here).
 * JSON bodies are parsed once complete; SSE is parsed event by event, and only the
 * events that carry final usage count: `response.completed` (or incomplete/failed) for
 * /responses, a terminal `thread.run.*` event for runs.
 */
export class UsageTap {
  readonly #kind: 'json' | 'sse';
  readonly #decoder = new TextDecoder();
  readonly #chunks: Uint8Array[] = [];
  #bytes = 0;
  #parser: EventSourceParser | undefined;
  #found: TappedUsage | undefined;
  #model: string | undefined;

  constructor(contentType: string) {
    this.#kind = contentType.includes('text/event-stream') ? 'sse' : 'json';
    if (this.#kind === 'sse') {
      this.#parser = createParser({ onEvent: (message) => this.#onEvent(message.event, message.data) });
    }
  }

  push(chunk: Uint8Array): void {
    if (this.#parser) {
      this.#parser.feed(this.#decoder.decode(chunk, { stream: true }));
      return;
    }
    this.#bytes += chunk.byteLength;
    if (this.#bytes <= MAX_JSON_BYTES) this.#chunks.push(chunk);
  }

  /** The usage the whole response reported, once the body has ended. */
  finish(): TappedUsage | undefined {
    if (this.#parser) {
      this.#parser.feed(`${this.#decoder.decode()}\n\n`);
      return this.#found;
    }
    if (this.#bytes > MAX_JSON_BYTES || this.#bytes === 0) return undefined;
    try {
      const report: unknown = JSON.parse(Buffer.concat(this.#chunks).toString('utf8'));
      this.#model = modelOf(report);
      return usageOf(report);
    } catch {
      return undefined;
    }
  }

  /**
   * The model the response named, with or without usage (a queued background Response, a
   * stream that broke off after `response.created`): read after finish().
   */
  get reportedModel(): string | undefined {
    return this.#found?.upstreamModel ?? this.#model;
  }

  #onEvent(event: string | undefined, data: string): void {
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      return;
    }
    // OpenAI names the event both in `event:` and in the payload's `type` (Responses).
    const type = event ?? (typeof payload === 'object' && payload !== null ? Reflect.get(payload, 'type') : undefined);
    if (typeof type !== 'string') return;
    const response = typeof payload === 'object' && payload !== null ? Reflect.get(payload, 'response') : undefined;
    this.#model ??= type.startsWith('thread.run.') ? modelOf(payload) : modelOf(response);
    if (TERMINAL_RESPONSE_EVENTS.has(type)) {
      this.#found = usageOf(response) ?? this.#found;
    } else if (TERMINAL_RUN_EVENTS.has(type)) {
      this.#found = usageOf(payload) ?? this.#found;
    }
  }
}

/** The `model` a Response or Run object names. */
const modelOf = (value: unknown): string | undefined => {
  const report = ReportSchema.safeParse(value);
  return report.success && report.data.model ? report.data.model : undefined;
};

/** Usage of a Response or Run object; undefined when it reports none (yet). */
export function usageOf(value: unknown): TappedUsage | undefined {
  const report = ReportSchema.safeParse(value);
  if (!report.success || report.data.usage == null) return undefined;
  const upstreamModel = report.data.model ?? undefined;
  const objectId = report.data.id ?? undefined;
  const objectCreatedAt = report.data.created_at == null ? undefined : new Date(report.data.created_at * 1000);
  const responses = ResponsesUsageSchema.safeParse(report.data.usage);
  if (responses.success) {
    const usage: Usage = { inputTokens: responses.data.input_tokens, outputTokens: responses.data.output_tokens };
    const cached = responses.data.input_tokens_details?.cached_tokens;
    const reasoning = responses.data.output_tokens_details?.reasoning_tokens;
    if (cached) usage.cachedInputTokens = cached;
    if (reasoning) usage.reasoningTokens = reasoning;
    return { usage, upstreamModel, objectId, objectCreatedAt };
  }
  const run = RunUsageSchema.safeParse(report.data.usage);
  if (run.success) {
    const usage: Usage = { inputTokens: run.data.prompt_tokens, outputTokens: run.data.completion_tokens };
    const cached = run.data.prompt_token_details?.cached_tokens;
    if (cached) usage.cachedInputTokens = cached;
    return { usage, upstreamModel, objectId, objectCreatedAt };
  }
  return undefined;
}
