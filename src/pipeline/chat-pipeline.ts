import type { BudgetLeases, Reservation } from '../billing/budget-leases.ts';
import type { Span } from '@opentelemetry/api';
import { JOURNAL_PROGRESS_MS, JOURNAL_START_MS, type OpenCall } from '../billing/open-call.ts';
import { contextWith, endSpan, SpanKind, startSpan } from '../ops/tracing.ts';
import type { ProviderAdapter } from '../providers/adapter.ts';
import { computeChatCost, worstCaseChatCost } from '../catalog/costs.ts';
import type { CatalogModel } from '../catalog/types.ts';
import { JunctionError } from '../core/errors.ts';
import type { ModelRequest, ModelResponse, ModelStreamEvent, Usage } from '../core/model-types.ts';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import { admit, admitNow, type AdmissionDeps, type Admitted, reserveFromLeases, reserveOrCap } from './admission.ts';
import type { CallContext } from './call-context.ts';
import { estimateInputTokens } from './estimate-input-tokens.ts';
import { TextTokenEstimate } from '../core/estimate-text-tokens.ts';
import { newGenerationId } from './generation-id.ts';
import { SettledEventStream } from '../core/settled-event-stream.ts';
import type { RateLimitState } from './rate-limiter.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, toClientError, withRetriesAndFallbacks } from './upstream-attempts.ts';
import { usageLogEntry } from './usage-log-entry.ts';
import type { DeploymentRouter } from '../routing/deployment-router.ts';
import type { ProviderPreferences } from '../routing/provider-preferences.ts';
import { answerEvents, answerResponse, answerUsage } from './cached-answer.ts';
import { ReplayedEvents } from './replayed-events.ts';
import type { CacheHit, ResponseCache, SemanticColumns } from './response-cache.ts';
import { responseCacheKey } from './response-cache-key.ts';
import { semanticCacheKey, type SemanticKey } from './semantic-cache-key.ts';
import { requireMethod, UnaryPipeline } from './unary-pipeline.ts';
import { answerInTime, openStream } from './timed-attempt.ts';
import { computeEmbeddingCost } from '../catalog/costs.ts';
import { overlay } from '../core/overlay.ts';

export type ChatInput = {
  /** Catalog id or alias as the client sent it. */
  model: string;
  /** Tried in order when the model fails before its first byte (OpenRouter's `models`). */
  fallbackModels?: readonly string[];
  /** The request's steering of deployments (OpenRouter's `provider`); never sent upstream. */
  providerPreferences?: ProviderPreferences;
  /**
   * The request's own opt-in to the response cache (its `cache` field); 0 keeps this call
   * out of it whatever the key says. `semantic` lets a miss be answered by a similar prompt.
   */
  cache?: { ttlSeconds: number; semantic?: boolean };
  request: Omit<ModelRequest, 'model'>;
};

/** How the response cache took part in a call that opted in: `x-junction-cache`. */
export type CacheState = 'hit' | 'miss';

export type ChatOutcome = { usage: Usage; costMicros: number; model: CatalogModel; generationId: string };

export type ChatStream = {
  generationId: string;
  model: CatalogModel;
  rateLimit: RateLimitState | undefined;
  /** The upstream's events; the first is already fetched. Iterate once. */
  events: AsyncIterable<ModelStreamEvent>;
  /** Usage and cost, once `events` has finished (normally, with an error, or abandoned). */
  outcome(): ChatOutcome | undefined;
  /** Set when the call opted into the response cache. */
  cache?: CacheState;
  /** A hit found by meaning: the cosine similarity of its prompt to this one. */
  cacheSimilarity?: number;
};

export type ChatResult = ChatOutcome & { response: ModelResponse; rateLimit: RateLimitState | undefined; cache?: CacheState; cacheSimilarity?: number };

export type ChatPipelineDeps = AdmissionDeps & { providers: ProviderRegistry; budgets: BudgetLeases; retry?: RetryPolicy; router?: DeploymentRouter; responseCache?: ResponseCache };

/**
 * A call that opted into the response cache: where its answer is kept, and for how long;
 * with `semantic` when it may match by meaning (its embedding is set once computed).
 */
type CacheProbe = { cache: ResponseCache; hash: string; ttlSeconds: number; semantic?: SemanticKey & { model: string; vector?: number[] } };

/** The usage log's endpoint of the embedding call a semantic lookup makes. */
const SEMANTIC_EMBED_ENDPOINT = 'cache.semantic';

/**
 * The one path of every chat model call, from any front-end or agent step:
 * admit (rate, model, plan, allowlist) → reserve the worst case (or cap the output to
 * the budget) → call the provider with retries and fallbacks before the first byte →
 * meter → settle the actual cost with the usage row, releasing the rest.
 */
export class ChatPipeline {
  readonly #deps: ChatPipelineDeps;
  /** The semantic cache's embedding calls: the same gates, reservation and billing as /v1/embeddings. */
  readonly #unary: UnaryPipeline;

  constructor(deps: ChatPipelineDeps) {
    this.#deps = deps;
    this.#unary = new UnaryPipeline(deps);
  }

  async stream(context: CallContext, input: ChatInput): Promise<ChatStream> {
    const begun = this.#begin(context, input, true);
    const call = begun instanceof Promise ? await begun : begun;
    const probe = this.#cacheProbe(context, input, call);
    if (probe) {
      const hit = await this.#lookup(context, probe);
      if (hit) {
        const outcome = this.#settleHit(context, call, probe, hit, true);
        const events = new ReplayedEvents(answerEvents(hit.answer));
        return { generationId: call.generationId, model: outcome.model, rateLimit: call.rateLimit, events, outcome: () => outcome, cache: 'hit', ...similarityOf(hit) };
      }
    }
    let opened;
    try {
      opened = await withRetriesAndFallbacks(
        call.candidates,
        this.#deps.providers,
        this.#deps.retry ?? DEFAULT_RETRY_POLICY,
        context.signal,
        // The first event proves the upstream accepted the call; until then a retry is safe.
        tracedAttempt(call, (adapter, model) => openStream(context, adapter, model, withUpstreamModel(call.request, model))),
        this.#deps.router,
        input.providerPreferences,
        true,
        windowTokens(call),
      );
    } catch (error) {
      throw this.#failBeforeStart(context, call, error, true);
    }
    const { iterator, first } = opened.value;
    const model = opened.model;
    const meter = new StreamMeter();
    // A miss keeps the stream's events to store once it ends on its own, unless they outgrow an entry.
    let collected: ModelStreamEvent[] | undefined = probe ? [] : undefined;
    let collectedBytes = 0;
    const journaled = openCall(context, call, model, true);
    // A stream enters the crash journal once it has lasted JOURNAL_START_MS (short streams,
    // most of them, never cost a journal write), then its progress every JOURNAL_PROGRESS_MS:
    // a crash bills what was streamed.
    let journaledAt = performance.now() - JOURNAL_PROGRESS_MS + JOURNAL_START_MS;
    const observe = (event: ModelStreamEvent) => {
      meter.observe(event);
      if (collected && probe) {
        collected.push(event);
        collectedBytes += eventTextLength(event);
        if (collectedBytes > probe.cache.maxEntryBytes) collected = undefined;
      }
      if (performance.now() - journaledAt < JOURNAL_PROGRESS_MS) return;
      journaledAt = performance.now();
      const usage = meter.usage ?? meter.estimate(call.inputEstimate);
      journaled.inputTokens = usage.inputTokens;
      journaled.outputTokens = usage.outputTokens;
      journaled.costMicros = computeChatCost(model, usage);
      this.#deps.budgets.journal(journaled);
    };
    let outcome: ChatOutcome | undefined;
    const finish = (status: 'success' | 'upstream_error' | 'client_closed', httpStatus: number, errorCode?: string) => {
      if (outcome) return;
      opened.release?.();
      opened.value.unlink?.();
      const usage = meter.usage ?? meter.estimate(call.inputEstimate);
      opened.reckon?.(usage.inputTokens + usage.outputTokens);
      const costMicros = computeChatCost(model, usage);
      outcome = { usage, costMicros, model, generationId: call.generationId };
      this.#settle({ context, call, model, status, httpStatus, usage, costMicros, attempts: opened.attempts, streamed: true, errorCode });
      // Only a stream that ended on its own is kept; never one the client cut short.
      if (probe && collected && status === 'success' && !context.signal.aborted) {
        void probe.cache.store(context.key.accountId, probe.hash, model.id, { kind: 'events', events: collected }, probe.ttlSeconds, semanticColumns(probe));
      }
    };
    const events = new SettledEventStream(iterator, first, {
      observe,
      complete: () => finish('success', 200),
      fail: (error) => {
        if (context.signal.aborted) {
          finish('client_closed', 499, 'client_closed_request');
          return new JunctionError('client_closed_request', 'The client closed the connection.');
        }
        const clientError = toClientError(error, model);
        finish('upstream_error', clientError.status, clientError.code);
        return clientError;
      },
      // The consumer stopped early (client gone): the upstream was stopped, bill what was produced.
      abandon: () => finish('client_closed', 499, 'client_closed_request'),
    });
    return { generationId: call.generationId, model, rateLimit: call.rateLimit, events, outcome: () => outcome, cache: probe && 'miss' };
  }

  async generate(context: CallContext, input: ChatInput): Promise<ChatResult> {
    const begun = this.#begin(context, input, false);
    const call = begun instanceof Promise ? await begun : begun;
    const probe = this.#cacheProbe(context, input, call);
    if (probe) {
      const hit = await this.#lookup(context, probe);
      if (hit) {
        const outcome = this.#settleHit(context, call, probe, hit, false);
        return { ...outcome, response: answerResponse(hit.answer), rateLimit: call.rateLimit, cache: 'hit', ...similarityOf(hit) };
      }
    }
    const [firstCandidate] = call.candidates;
    if (firstCandidate) this.#deps.budgets.journal(openCall(context, call, firstCandidate, false));
    let result;
    try {
      result = await withRetriesAndFallbacks(
        call.candidates,
        this.#deps.providers,
        this.#deps.retry ?? DEFAULT_RETRY_POLICY,
        context.signal,
        tracedAttempt(call, (adapter, model) => answerInTime(context, adapter, model, (signal) => adapter.generateChat(withUpstreamModel(call.request, model), { signal }))),
        this.#deps.router,
        input.providerPreferences,
        false,
        windowTokens(call),
      );
    } catch (error) {
      throw this.#failBeforeStart(context, call, error, false);
    }
    const usage = result.value.usage;
    result.reckon?.(usage.inputTokens + usage.outputTokens);
    const costMicros = computeChatCost(result.model, usage);
    this.#settle({ context, call, model: result.model, status: 'success', httpStatus: 200, usage, costMicros, attempts: result.attempts, streamed: false });
    if (probe) void probe.cache.store(context.key.accountId, probe.hash, result.model.id, { kind: 'response', response: result.value }, probe.ttlSeconds, semanticColumns(probe));
    return { response: result.value, usage, costMicros, model: result.model, generationId: call.generationId, rateLimit: call.rateLimit, cache: probe && 'miss' };
  }

  /**
   * The call's place in the response cache when it opted in (the request's `cache`, else
   * its key's `cache_ttl_seconds`), else undefined. The key is taken from the request as it
   * goes upstream: an output cap the budget imposed makes it another request.
   */
  #cacheProbe(context: CallContext, input: ChatInput, call: BeganCall): CacheProbe | undefined {
    const cache = this.#deps.responseCache;
    if (cache === undefined) return undefined;
    const ttlSeconds = input.cache?.ttlSeconds ?? context.key.cacheTtlSeconds ?? 0;
    if (!(ttlSeconds > 0)) return undefined;
    const probe: CacheProbe = { cache, ttlSeconds, hash: responseCacheKey(call.candidates, call.request) };
    const settings = cache.semantic;
    const key = settings && input.cache?.semantic === true ? semanticCacheKey(call.candidates, call.request) : undefined;
    if (settings && key) probe.semantic = { ...key, model: settings.model };
    return probe;
  }

  /**
   * The exact entry, else (for a call that opted into semantic matching) the nearest of
   * its shape by meaning. The prompt's embedding is kept on the probe: a miss stores it
   * with the answer. A failed embedding call leaves the call an exact-only miss.
   */
  async #lookup(context: CallContext, probe: CacheProbe): Promise<CacheHit | undefined> {
    const exact = await probe.cache.lookup(context.key.accountId, probe.hash);
    const semantic = probe.semantic;
    if (exact || !semantic) return exact;
    try {
      semantic.vector = await this.#embed(context, semantic.model, semantic.text);
    } catch (error) {
      probe.cache.reportError(error);
      return undefined;
    }
    return probe.cache.lookupSimilar(context.key.accountId, { shapeHash: semantic.shapeHash, model: semantic.model, vector: semantic.vector });
  }

  /** The text's embedding through the unary pipeline, billed to the caller's key like any embedding call. */
  async #embed(context: CallContext, modelId: string, text: string): Promise<number[]> {
    const bytes = Buffer.byteLength(text, 'utf8');
    const result = await this.#unary.run(overlay(context, { endpoint: SEMANTIC_EMBED_ENDPOINT }), {
      model: modelId,
      capability: 'embeddings',
      // Byte-level BPE never makes more tokens than UTF-8 bytes, so bytes bound the bill.
      worstCase: (model) => computeEmbeddingCost(model, bytes),
      call: (adapter, model, signal) => requireMethod(adapter, 'embed', model)({ model: model.upstreamName, input: [text] }, { signal }),
      meter: (response, model) => ({ costMicros: computeEmbeddingCost(model, response.usage.inputTokens), usage: { inputTokens: response.usage.inputTokens, outputTokens: 0 }, units: { inputs: 1 } }),
    });
    const vector = result.value.embeddings[0];
    if (!vector) throw new JunctionError('upstream_error', 'The embedding model returned no vector.');
    return vector;
  }

  /** A hit settles at once: no provider was asked, so its usage row says so and it costs the configured fraction (default nothing). */
  #settleHit(context: CallContext, call: BeganCall, probe: CacheProbe, hit: CacheHit, streamed: boolean): ChatOutcome {
    const model = call.candidates.find((candidate) => candidate.id === hit.model) ?? call.candidates[0];
    if (model === undefined) throw new JunctionError('internal_error', 'A call was admitted without a model.');
    const usage = answerUsage(hit.answer);
    const costMicros = probe.cache.hitCost(model, usage);
    this.#settle({ context, call, model, status: 'success', httpStatus: 200, usage, costMicros, attempts: 0, streamed, cacheHit: true });
    return { usage, costMicros, model, generationId: call.generationId };
  }

  /**
   * Admits the call and reserves its worst case. Answered at once on nearly every call (see
   * admitNow and reserveFromLeases): each awaited step cost a promise and a turn of the
   * microtask queue per call, which showed in the gateway's CPU per request. A promise only
   * when a step must wait (first call of an account, Redis windows, a lease top-up).
   */
  #begin(context: CallContext, input: ChatInput, streamed: boolean): BeganCall | Promise<BeganCall> {
    const startedAt = performance.now();
    const span = startSpan(`chat ${input.model}`, context.trace, { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': input.model, 'junction.streamed': streamed }, SpanKind.CLIENT);
    const request = { ...input.request };
    const prepared: PreparedCall = { generationId: newGenerationId(), request, inputTokens: estimateInputTokens(request), startedAt, createdAt: new Date(), streamed, span };
    try {
      const admitted = admitNow(this.#deps, context, gateOf(input));
      const reserved = admitted && reserveFromLeases(this.#deps.budgets, context, budgetOf(prepared, admitted.candidates));
      if (admitted && reserved) return began(prepared, input, admitted, reserved);
      return this.#beginAwaited(context, input, prepared, admitted);
    } catch (error) {
      throw this.#refused(context, input, prepared, error);
    }
  }

  /** #begin's steps that wait; `admitted` when admission already answered (its count is not taken twice). */
  async #beginAwaited(context: CallContext, input: ChatInput, prepared: PreparedCall, admitted: Admitted | undefined): Promise<BeganCall> {
    try {
      const admission = admitted ?? (await admit(this.#deps, context, gateOf(input)));
      return began(prepared, input, admission, await reserveOrCap(this.#deps.budgets, context, budgetOf(prepared, admission.candidates)));
    } catch (error) {
      throw this.#refused(context, input, prepared, error);
    }
  }

  /** A call refused before any provider was asked: its span ends, and a refusal gets a usage row (no cost) so the account sees what was turned away. */
  #refused(context: CallContext, input: ChatInput, prepared: PreparedCall, error: unknown): unknown {
    endSpan(prepared.span, error);
    if (error instanceof JunctionError) {
      this.#deps.budgets.settle(
        undefined,
        0,
        usageLogEntry({
          id: prepared.generationId,
          context,
          requestedModel: input.model,
          model: undefined,
          status: 'rejected',
          httpStatus: error.status,
          errorCode: error.code,
          costMicros: 0,
          startedAt: prepared.startedAt,
          createdAt: prepared.createdAt,
          streamed: prepared.streamed,
        }),
        context.key,
      );
    }
    return error;
  }

  #failBeforeStart(context: CallContext, call: BeganCall, error: unknown, streamed: boolean): JunctionError {
    const aborted = context.signal.aborted;
    const clientError = aborted ? new JunctionError('client_closed_request', 'The client closed the connection.') : toClientError(error, call.candidates[0]);
    this.#settle({
      context,
      call,
      model: call.candidates[0],
      status: aborted ? 'client_closed' : 'upstream_error',
      httpStatus: clientError.status,
      usage: undefined,
      costMicros: 0,
      attempts: 1,
      streamed,
      errorCode: clientError.code,
    });
    return clientError;
  }

  #settle(settlement: Settlement): void {
    const { context, call, model, status, httpStatus, usage, costMicros, attempts, streamed, errorCode, cacheHit } = settlement;
    if (call.span) {
      call.span.setAttributes({
        'gen_ai.system': model?.providerId ?? 'unknown',
        'gen_ai.response.model': model?.id ?? 'unknown',
        'gen_ai.usage.input_tokens': usage?.inputTokens ?? 0,
        'gen_ai.usage.output_tokens': usage?.outputTokens ?? 0,
        'junction.cost_usd': costMicros / 1_000_000,
        'junction.attempts': attempts,
        'junction.status': status,
      });
      endSpan(call.span, status === 'success' ? undefined : new Error(errorCode ?? status));
    }
    const entry = usageLogEntry({
      id: call.generationId,
      context,
      requestedModel: call.requestedModel,
      model,
      status,
      httpStatus,
      errorCode: errorCode ?? null,
      ...(usage && { usage }),
      costMicros,
      startedAt: call.startedAt,
      createdAt: call.createdAt,
      attempts,
      streamed,
      cacheHit,
    });
    this.#deps.budgets.settle(call.reservation, costMicros, entry, context.key);
  }
}

/** How a call that reached (or was about to reach) a provider ended: what its span and usage row record. */
type Settlement = {
  context: CallContext;
  call: BeganCall;
  model: CatalogModel | undefined;
  status: 'success' | 'upstream_error' | 'client_closed';
  httpStatus: number;
  usage: Usage | undefined;
  costMicros: number;
  attempts: number;
  streamed: boolean;
  errorCode?: string | undefined;
  /** Answered from the response cache. */
  cacheHit?: boolean;
};

/** The semantic columns a miss stores with its answer: only when its prompt was embedded. */
function semanticColumns(probe: CacheProbe): SemanticColumns | undefined {
  const semantic = probe.semantic;
  if (!semantic?.vector) return undefined;
  return { shapeHash: semantic.shapeHash, model: semantic.model, vector: semantic.vector };
}

/** `cacheSimilarity` of a hit found by meaning; nothing for an exact one. */
const similarityOf = (hit: CacheHit): { cacheSimilarity?: number } => (hit.similarity === undefined ? {} : { cacheSimilarity: hit.similarity });

/** The text an event adds to a stored entry, to bound what a miss collects. */
function eventTextLength(event: ModelStreamEvent): number {
  switch (event.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return event.delta.length + 32;
    case 'tool-call-delta':
      return event.argumentsDelta.length + 48;
    case 'reasoning-signature':
      return event.signature.length + 48;
    case 'reasoning-redacted':
      return event.data.length + 48;
    default:
      return 128;
  }
}

/** Each upstream attempt (retries and fallbacks included) as a child span of the call's, when tracing is on. */
function tracedAttempt<T>(call: { span: Span | undefined }, attempt: (adapter: ProviderAdapter, model: CatalogModel) => Promise<T>) {
  if (!call.span) return attempt;
  const parent = contextWith(call.span, undefined);
  return async (adapter: ProviderAdapter, model: CatalogModel): Promise<T> => {
    const span = startSpan(`attempt ${model.providerId}`, parent, { 'gen_ai.system': model.providerId, 'gen_ai.request.model': model.upstreamName }, SpanKind.CLIENT);
    try {
      const value = await attempt(adapter, model);
      endSpan(span);
      return value;
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
  };
}

/** `startedAt` (performance.now) times the call; `createdAt` dates its usage row and its crash-journal row alike. */
type PreparedCall = { generationId: string; request: ChatInput['request']; inputTokens: number; startedAt: number; createdAt: Date; streamed: boolean; span: Span | undefined };

const gateOf = (input: ChatInput) => ({ model: input.model, fallbackModels: input.fallbackModels ?? [], capability: 'chat' as const });

/** The worst case to reserve on the candidates, and the output a smaller budget pays for. */
function budgetOf(prepared: PreparedCall, candidates: CatalogModel[]) {
  const { inputTokens } = prepared;
  // Some providers think on top of the output cap (Anthropic's max_tokens must exceed
  // the thinking budget), so a capped call reserves its thinking allowance too.
  const thinking = reasoningAllowance(prepared.request.reasoning);
  return {
    explicitCap: prepared.request.maxOutputTokens,
    worstCase: (cap: number | undefined) => Math.max(...candidates.map((model) => worstCaseChatCost(model, { inputTokens, maxOutputTokens: cap === undefined ? undefined : cap + thinking }))),
    affordableOutput: (budgetMicros: number) => Math.min(...candidates.map((model) => affordableOutputTokens(model, inputTokens, budgetMicros))) - thinking,
  };
}

function began(prepared: PreparedCall, input: ChatInput, admitted: Admitted, reserved: { reservation: Reservation; cappedOutputTokens: number | undefined }) {
  const { request } = prepared;
  if (reserved.cappedOutputTokens !== undefined) request.maxOutputTokens = reserved.cappedOutputTokens;
  return {
    generationId: prepared.generationId,
    request,
    candidates: admitted.candidates,
    reservation: reserved.reservation,
    rateLimit: admitted.rateLimit,
    startedAt: prepared.startedAt,
    createdAt: prepared.createdAt,
    inputEstimate: Math.ceil(prepared.inputTokens / 4),
    requestedModel: input.model,
    streamed: prepared.streamed,
    span: prepared.span,
  };
}

/** The crash journal's row for a call under way, costed at its input estimate until tokens are observed. */
function openCall(context: CallContext, call: BeganCall, model: CatalogModel, streamed: boolean): OpenCall {
  const inputTokens = call.inputEstimate;
  return {
    id: call.generationId,
    accountId: context.key.accountId,
    keyId: context.key.id || null,
    requestId: context.requestId,
    endpoint: context.endpoint,
    requestedModel: call.requestedModel,
    model: model.id,
    provider: model.providerId,
    upstreamModel: model.upstreamName,
    inputTokens,
    outputTokens: 0,
    costMicros: computeChatCost(model, { inputTokens, outputTokens: 0 }),
    streamed,
    agentId: context.agent?.agentId ?? null,
    agentRunId: context.agent?.runId ?? null,
    // The usage row's created_at: a reclaimer's `interrupted` row for this call is the settled one's key.
    startedAt: call.createdAt,
  };
}

type BeganCall = ReturnType<typeof began>;

/** What a call may use of a deployment's tokens per minute: its input estimate plus its output cap (the model's when the call sets none). */
const windowTokens =
  (call: BeganCall) =>
  (model: CatalogModel): number =>
    call.inputEstimate + (call.request.maxOutputTokens ?? model.maxOutputTokens ?? 0);

/**
 * The call's request for one candidate. The model goes first and the request's fields
 * after it: in Node 20's V8 an object literal that opens with a spread and adds a field
 * gets a new hidden class every time, so each request had its own, and every read of its
 * fields (the provider conversion reads a dozen) missed V8's caches: about 3 µs per call.
 */
const withUpstreamModel = (request: ChatInput['request'], model: CatalogModel): ModelRequest => ({ model: model.upstreamName, ...request });

/**
 * Reasoning tokens a provider may spend beyond the output cap: the explicit budget, or
 * the largest budget any adapter maps the effort to (Gemini's 24,576 for `high`).
 */
const EFFORT_BUDGETS = { minimal: 1_024, low: 4_096, medium: 8_192, high: 24_576 } as const;
export function reasoningAllowance(reasoning: ModelRequest['reasoning']): number {
  if (!reasoning || reasoning.enabled === false) return 0;
  // Anthropic raises budgets below 1,024 to 1,024.
  if (reasoning.budgetTokens !== undefined) return Math.max(1_024, reasoning.budgetTokens);
  if (reasoning.effort) return EFFORT_BUDGETS[reasoning.effort];
  return reasoning.enabled ? EFFORT_BUDGETS.high : 0;
}

/** Output tokens `budgetMicros` pays for after the input at worst-case rates. */
function affordableOutputTokens(model: CatalogModel, inputTokens: number, budgetMicros: number): number {
  const inputCost = worstCaseChatCost(model, { inputTokens, maxOutputTokens: 0 });
  const perMillion = model.prices.outputPerMillion ?? 0;
  if (perMillion <= 0) return Number.MAX_SAFE_INTEGER;
  const left = budgetMicros - inputCost;
  return left <= 0 ? 0 : Math.floor((left * 1_000_000) / perMillion);
}

/** Tracks what a stream produced, for billing a stream that ended without usage. */
class StreamMeter {
  usage: Usage | undefined;
  readonly #produced = new TextTokenEstimate();

  observe(event: ModelStreamEvent): void {
    if (event.type === 'usage') this.usage = event.usage;
    else if (event.type === 'text-delta' || event.type === 'reasoning-delta') this.#produced.add(event.delta);
    else if (event.type === 'tool-call-delta') this.#produced.add(event.argumentsDelta);
  }

  estimate(inputTokens: number): Usage {
    return { inputTokens, outputTokens: this.#produced.tokens };
  }
}
