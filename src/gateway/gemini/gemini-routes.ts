import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { computeChatCost, computeEmbeddingCost } from '../../catalog/costs.ts';
import { resolveModel } from '../../catalog/lookup.ts';
import { qualifyNativeModelName } from '../../catalog/native-model-name.ts';
import type { Catalog, CatalogModel } from '../../catalog/types.ts';
import { isJunctionError, JunctionError } from '../../core/errors.ts';
import { authenticatedKey, requireKey } from '../../http/auth-hook.ts';
import { LARGE_BODY_LIMIT } from '../../http/body-limits.ts';
import { errorBody } from '../../http/error-shapes.ts';
import { parseInput } from '../../http/parse-body.ts';
import { sendInOrder } from '../../http/send-in-order.ts';
import { SseWriter } from '../../http/sse-writer.ts';
import { forEachEvent } from '../../core/settled-event-stream.ts';
import type { KeyAuthenticator } from '../../keys/key-authenticator.ts';
import type { EmbeddingRequest } from '../../providers/adapter.ts';
import type { AccountPlans } from '../../pipeline/account-plans.ts';
import type { ChatPipeline } from '../../pipeline/chat-pipeline.ts';
import { isVisibleTo } from '../../pipeline/model-access.ts';
import { rateLimitHeaders } from '../../pipeline/rate-limiter.ts';
import { requireMethod, type UnaryPipeline } from '../../pipeline/unary-pipeline.ts';
import { callContextFrom } from '../call-context-from-request.ts';
import { countInputTokens, type CountTokensDeps } from '../messages/count-input-tokens.ts';
import { carryUnknownFields, droppedParamsHeaders, readTolerantly } from '../tolerant-reader.ts';
import { convertBatchEmbedContentsBody, convertEmbedContentBody } from './convert-embed-request.ts';
import { convertCountTokensBody, convertGenerateBody } from './convert-generate-request.ts';
import { BatchEmbedContentsRequestSchema, CountTokensRequestSchema, EmbedContentRequestSchema, GenerateContentRequestSchema } from './gemini-request-schemas.ts';
import { parseGeminiModelPath, parseGeminiPath } from './gemini-path.ts';
import { JsonArrayWriter } from './json-array-writer.ts';
import { renderBatchEmbedContents, renderEmbedContent } from './render-embeddings.ts';
import { renderGenerateResponse } from './render-generate-response.ts';
import { pageOfModels, toGeminiModel } from './render-models.ts';
import { GenerateStreamEncoder } from './render-generate-stream.ts';
import { PROVIDER_HEADER } from '../../routing/provider-header.ts';
import { cacheHeaders, takeCacheOption } from '../response-cache-option.ts';

export type GeminiRouteDeps = CountTokensDeps & { authenticator: KeyAuthenticator; chat: ChatPipeline; unary: UnaryPipeline };
export type GeminiModelDeps = { catalog: Catalog; plans: AccountPlans };

/**
 * `POST /v1beta/models/{model}:{method}`: the Gemini generate-content protocol in front
 * of every provider, through the same pipelines as the OpenAI-format endpoints (so the
 * same call costs the same). `{model}` is a catalog id, an alias, or a bare Gemini name
 * (`gemini-2.5-flash` → `google/gemini-2.5-flash`); errors take Google's shape. One
 * wildcard route, because the model id itself contains a slash. `GET /v1beta/models`
 * and `/v1beta/models/{model}` list and describe the models the key may call.
 */
export async function geminiRoutes(app: FastifyInstance, deps: GeminiRouteDeps): Promise<void> {
  const auth = requireKey(deps.authenticator, { kinds: ['model'] });

  // `models.list()` of @google/genai: the models this key may call, in Gemini's shape.
  app.get('/models', { preHandler: auth, config: { errorFormat: 'google' } }, async (request) => listGeminiModels(deps, request));
  app.get('/models/*', { preHandler: auth, config: { errorFormat: 'google' } }, async (request) => describeGeminiModel(deps, request));
  await geminiMethodRoutes(app, deps);
}

/**
 * The `{model}:{method}` calls alone: also served under /v1, where @google/genai 3 sends
 * them by default (its API version is `v1`); the method suffix keeps them apart from
 * every OpenAI-format route there.
 */
export async function geminiMethodRoutes(app: FastifyInstance, deps: GeminiRouteDeps): Promise<void> {
  const auth = requireKey(deps.authenticator, { kinds: ['model'] });
  app.post('/models/*', { bodyLimit: LARGE_BODY_LIMIT, preHandler: auth, config: { errorFormat: 'google' } }, async (request, reply) => {
    const parsed = parseGeminiPath(request.url);
    const method = parsed.method;
    const model = qualifyNativeModelName(deps.catalog, parsed.model, 'google');
    const qualify = (name: string) => qualifyNativeModelName(deps.catalog, name.replace(/^models\//, ''), 'google');
    switch (method) {
      case 'generateContent':
        return generate(deps, request, reply, model);
      case 'streamGenerateContent':
        return streamGenerate(deps, request, reply, model);
      case 'countTokens': {
        const { body, unknown } = readTolerantly(CountTokensRequestSchema, request.body);
        const prompt = convertCountTokensBody(body);
        const counted = await countInputTokens(deps, callContextFrom(request, reply, 'gemini.count_tokens'), model, prompt);
        if (counted.rateLimit) reply.headers(rateLimitHeaders(counted.rateLimit));
        reply.headers(droppedParamsHeaders('gemini', undefined, unknown));
        return { totalTokens: counted.inputTokens };
      }
      case 'embedContent': {
        const { body, unknown } = readTolerantly(EmbedContentRequestSchema, request.body);
        const embedding = convertEmbedContentBody(body, model, qualify);
        reply.headers(droppedParamsHeaders('gemini', undefined, unknown));
        return renderEmbedContent(await embed(deps, request, reply, model, embedding, 'gemini.embed_content'));
      }
      case 'batchEmbedContents': {
        const { body, unknown } = readTolerantly(BatchEmbedContentsRequestSchema, request.body);
        const embedding = convertBatchEmbedContentsBody(body, model, qualify);
        reply.headers(droppedParamsHeaders('gemini', undefined, unknown));
        return renderBatchEmbedContents(await embed(deps, request, reply, model, embedding, 'gemini.batch_embed_contents'));
      }
    }
  });
}

/** `models.list()`: the models this key may call, a page at a time. */
export async function listGeminiModels(deps: GeminiModelDeps, request: FastifyRequest) {
  const query = parseInput(ListModelsQuerySchema, request.query, 'query');
  return pageOfModels(await visibleModels(deps, request), query.pageSize, query.pageToken);
}

/** `models.get()`: one model by catalog id, alias or bare Gemini name. */
export async function describeGeminiModel(deps: GeminiModelDeps, request: FastifyRequest) {
  const requested = parseGeminiModelPath(request.url);
  const id = qualifyNativeModelName(deps.catalog, requested, 'google');
  const model = resolveModel(deps.catalog, id);
  const visible = model && (await visibleModels(deps, request)).some((entry) => entry.id === model.canonicalId);
  if (!model || !visible) throw new JunctionError('model_not_found', `The model '${requested}' does not exist or is not available to this key.`, { param: 'model' });
  return toGeminiModel(model);
}

const ListModelsQuerySchema = z.object({
  pageSize: z.coerce.number().int().min(1).max(1000).default(50),
  pageToken: z.string().min(1).max(64).optional(),
});

async function visibleModels(deps: GeminiModelDeps, request: FastifyRequest): Promise<CatalogModel[]> {
  const key = authenticatedKey(request);
  const plan = await deps.plans.planOf(key.accountId);
  return deps.catalog.models.filter((model) => isVisibleTo(deps.catalog, key, plan, model));
}

/** The generate body read tolerantly, its unknown top-level fields kept for a google/… model. */
function readGenerateBody(body: unknown) {
  const cache = takeCacheOption(body);
  const { body: known, unknown } = readTolerantly(GenerateContentRequestSchema, body);
  const converted = convertGenerateBody(known);
  carryUnknownFields(converted.request, 'gemini', unknown);
  return { ...converted, unknown, cache };
}

async function generate(deps: GeminiRouteDeps, request: FastifyRequest, reply: FastifyReply, model: string) {
  const { request: converted, includeThoughts, unknown, cache } = readGenerateBody(request.body);
  const result = await deps.chat.generate(callContextFrom(request, reply, 'gemini.generate_content'), { model, request: converted, ...(cache && { cache }) });
  if (result.rateLimit) reply.headers(rateLimitHeaders(result.rateLimit));
  reply.headers(droppedParamsHeaders('gemini', result.model.providerKind, unknown));
  reply.header(PROVIDER_HEADER, result.model.providerId);
  reply.headers(cacheHeaders(result));
  return renderGenerateResponse(result.response, { model, includeThoughts, costMicros: result.costMicros });
}

/**
 * SSE with `?alt=sse` (what the official clients ask for), else a growing JSON array.
 * Failures before the first byte are ordinary Google error bodies; after it the Google
 * error object goes out as one more chunk (Gemini does the same) and the stream ends.
 */
async function streamGenerate(deps: GeminiRouteDeps, request: FastifyRequest, reply: FastifyReply, model: string) {
  const { request: converted, includeThoughts, unknown, cache } = readGenerateBody(request.body);
  const call = await deps.chat.stream(callContextFrom(request, reply, 'gemini.stream_generate_content'), { model, request: converted, ...(cache && { cache }) });
  reply.headers(droppedParamsHeaders('gemini', call.model.providerKind, unknown));
  reply.header(PROVIDER_HEADER, call.model.providerId);
  reply.headers(cacheHeaders(call));
  const headers = call.rateLimit ? rateLimitHeaders(call.rateLimit) : {};
  const query = request.query as Record<string, unknown> | undefined;
  const writer = query?.['alt'] === 'sse' ? sseChunks(new SseWriter(reply, headers)) : new JsonArrayWriter(reply, headers);
  const encoder = new GenerateStreamEncoder({ model, includeThoughts });
  try {
    const send = (chunk: Parameters<typeof writer.send>[0]) => writer.send(chunk);
    await forEachEvent(call.events, (event) => {
      // The last chunk carries usageMetadata with the cost; usage comes before finish (a cache hit's outcome is there from the start).
      if (event.type === 'usage') encoder.setCost(call.outcome()?.costMicros ?? computeChatCost(call.model, event.usage));
      return sendInOrder(encoder.push(event), send);
    });
    const outcome = call.outcome();
    if (outcome) encoder.setCost(outcome.costMicros);
    // A no-op after the upstream's own finish; otherwise the client still gets usage.
    for (const chunk of encoder.push({ type: 'finish', finishReason: { unified: 'other', raw: undefined } })) await writer.send(chunk);
  } catch (error) {
    const failure = isJunctionError(error) ? error : new JunctionError('internal_error', 'The stream failed.', { cause: error });
    if (failure.code !== 'client_closed_request') request.log.warn({ err: error }, 'gemini stream ended with an error');
    await writer.send(errorBody(failure, 'google'));
  }
  writer.end();
  return reply;
}

type ChunkWriter = { send(chunk: unknown): Promise<void> | undefined; end(): void };

const sseChunks = (sse: SseWriter): ChunkWriter => ({ send: (chunk) => sse.send(chunk), end: () => sse.end() });

/**
 * Embeddings through the unary pipeline, metered like /v1/embeddings: input tokens at
 * the input rate. The reservation bounds the input by its UTF-8 bytes (no tokenizer
 * makes more tokens than bytes).
 */
async function embed(deps: GeminiRouteDeps, request: FastifyRequest, reply: FastifyReply, model: string, embedding: Omit<EmbeddingRequest, 'model'>, endpoint: string) {
  const inputBytes = embedding.input.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
  const result = await deps.unary.run(callContextFrom(request, reply, endpoint), {
    model,
    capability: 'embeddings',
    worstCase: (candidate) => computeEmbeddingCost(candidate, inputBytes),
    call: (adapter, candidate, signal) => requireMethod(adapter, 'embed', candidate)({ model: candidate.upstreamName, ...embedding }, { signal }),
    meter: (response, candidate) => ({
      costMicros: computeEmbeddingCost(candidate, response.usage.inputTokens),
      usage: { inputTokens: response.usage.inputTokens, outputTokens: 0 },
    }),
  });
  if (result.rateLimit) reply.headers(rateLimitHeaders(result.rateLimit));
  return result.value;
}
