import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { computeChatCost, computeEmbeddingCost } from '../../catalog/costs.ts';
import { isJunctionError, JunctionError } from '../../core/errors.ts';
import { requireKey } from '../../http/auth-hook.ts';
import { LARGE_BODY_LIMIT } from '../../http/body-limits.ts';
import { errorBody } from '../../http/error-shapes.ts';
import { parseInput } from '../../http/parse-body.ts';
import { SseWriter } from '../../http/sse-writer.ts';
import type { KeyAuthenticator } from '../../keys/key-authenticator.ts';
import type { EmbeddingRequest } from '../../providers/adapter.ts';
import type { ChatPipeline } from '../../pipeline/chat-pipeline.ts';
import { rateLimitHeaders } from '../../pipeline/rate-limiter.ts';
import { requireMethod, type UnaryPipeline } from '../../pipeline/unary-pipeline.ts';
import { callContextFrom } from '../call-context-from-request.ts';
import { countInputTokens, type CountTokensDeps } from '../messages/count-input-tokens.ts';
import { convertBatchEmbedContentsBody, convertEmbedContentBody } from './convert-embed-request.ts';
import { convertCountTokensBody, convertGenerateBody } from './convert-generate-request.ts';
import {
  BatchEmbedContentsRequestSchema,
  CountTokensRequestSchema,
  EmbedContentRequestSchema,
  GenerateContentRequestSchema,
} from './gemini-request-schemas.ts';
import { parseGeminiPath } from './gemini-path.ts';
import { JsonArrayWriter } from './json-array-writer.ts';
import { renderBatchEmbedContents, renderEmbedContent } from './render-embeddings.ts';
import { renderGenerateResponse } from './render-generate-response.ts';
import { GenerateStreamEncoder } from './render-generate-stream.ts';

export type GeminiRouteDeps = CountTokensDeps & { authenticator: KeyAuthenticator; chat: ChatPipeline; unary: UnaryPipeline };

/**
 * `POST /v1beta/models/{model}:{method}`: the Gemini generate-content protocol in front
 * of every provider, through the same pipelines as the OpenAI-format endpoints (so the
 * same call costs the same). `{model}` is a catalog id or alias; errors take Google's
 * shape. One wildcard route, because the model id itself contains a slash.
 */
export async function geminiRoutes(app: FastifyInstance, deps: GeminiRouteDeps): Promise<void> {
  app.post(
    '/models/*',
    { bodyLimit: LARGE_BODY_LIMIT, preHandler: requireKey(deps.authenticator, { kinds: ['model'] }), config: { errorFormat: 'google' } },
    async (request, reply) => {
      const { model, method } = parseGeminiPath(request.url);
      switch (method) {
        case 'generateContent':
          return generate(deps, request, reply, model);
        case 'streamGenerateContent':
          return streamGenerate(deps, request, reply, model);
        case 'countTokens': {
          const prompt = convertCountTokensBody(parseInput(CountTokensRequestSchema, request.body));
          const counted = await countInputTokens(deps, callContextFrom(request, reply, 'gemini.count_tokens'), model, prompt);
          if (counted.rateLimit) reply.headers(rateLimitHeaders(counted.rateLimit));
          return { totalTokens: counted.inputTokens };
        }
        case 'embedContent': {
          const embedding = convertEmbedContentBody(parseInput(EmbedContentRequestSchema, request.body), model);
          return renderEmbedContent(await embed(deps, request, reply, model, embedding, 'gemini.embed_content'));
        }
        case 'batchEmbedContents': {
          const embedding = convertBatchEmbedContentsBody(parseInput(BatchEmbedContentsRequestSchema, request.body), model);
          return renderBatchEmbedContents(await embed(deps, request, reply, model, embedding, 'gemini.batch_embed_contents'));
        }
      }
    },
  );
}

async function generate(deps: GeminiRouteDeps, request: FastifyRequest, reply: FastifyReply, model: string) {
  const { request: converted, includeThoughts } = convertGenerateBody(parseInput(GenerateContentRequestSchema, request.body));
  const result = await deps.chat.generate(callContextFrom(request, reply, 'gemini.generate_content'), { model, request: converted });
  if (result.rateLimit) reply.headers(rateLimitHeaders(result.rateLimit));
  return renderGenerateResponse(result.response, { model, includeThoughts, costMicros: result.costMicros });
}

/**
 * SSE with `?alt=sse` (what the official clients ask for), else a growing JSON array.
 * Failures before the first byte are ordinary Google error bodies; after it the Google
 * error object goes out as one more chunk (Gemini does the same) and the stream ends.
 */
async function streamGenerate(deps: GeminiRouteDeps, request: FastifyRequest, reply: FastifyReply, model: string) {
  const { request: converted, includeThoughts } = convertGenerateBody(parseInput(GenerateContentRequestSchema, request.body));
  const call = await deps.chat.stream(callContextFrom(request, reply, 'gemini.stream_generate_content'), { model, request: converted });
  const headers = call.rateLimit ? rateLimitHeaders(call.rateLimit) : {};
  const query = request.query as Record<string, unknown> | undefined;
  const writer = query?.['alt'] === 'sse' ? sseChunks(new SseWriter(reply, headers)) : new JsonArrayWriter(reply, headers);
  const encoder = new GenerateStreamEncoder({ model, includeThoughts });
  try {
    for await (const event of call.events) {
      // The last chunk carries usageMetadata with the cost; usage comes before finish.
      if (event.type === 'usage') encoder.setCost(computeChatCost(call.model, event.usage));
      for (const chunk of encoder.push(event)) await writer.send(chunk);
    }
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

type ChunkWriter = { send(chunk: unknown): Promise<void>; end(): void };

const sseChunks = (sse: SseWriter): ChunkWriter => ({ send: (chunk) => sse.send(chunk), end: () => sse.end() });

/**
 * Embeddings through the unary pipeline, metered like /v1/embeddings: input tokens at
 * the input rate. The reservation bounds the input by its UTF-8 bytes (no tokenizer
 * makes more tokens than bytes).
 */
async function embed(
  deps: GeminiRouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  model: string,
  embedding: Omit<EmbeddingRequest, 'model'>,
  endpoint: string,
) {
  const inputBytes = embedding.input.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
  const result = await deps.unary.run(callContextFrom(request, reply, endpoint), {
    model,
    capability: 'embeddings',
    worstCase: (candidate) => computeEmbeddingCost(candidate, inputBytes),
    call: (adapter, candidate, signal) => requireMethod(adapter, 'embed', candidate)({ ...embedding, model: candidate.upstreamName }, { signal }),
    meter: (response, candidate) => ({
      costMicros: computeEmbeddingCost(candidate, response.usage.inputTokens),
      usage: { inputTokens: response.usage.inputTokens, outputTokens: 0 },
    }),
  });
  if (result.rateLimit) reply.headers(rateLimitHeaders(result.rateLimit));
  return result.value;
}
