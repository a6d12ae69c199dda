import type { FastifyInstance } from 'fastify';
import { computeEmbeddingCost } from '../../catalog/costs.ts';
import { JunctionError } from '../../core/errors.ts';
import { microsToUsd } from '../../core/money.ts';
import { requireKey } from '../../http/auth-hook.ts';
import { LARGE_BODY_LIMIT } from '../../http/body-limits.ts';
import { parseInput } from '../../http/parse-body.ts';
import { rateLimitHeaders } from '../../pipeline/rate-limiter.ts';
import { requireMethod } from '../../pipeline/unary-pipeline.ts';
import { callContextFrom } from '../call-context-from-request.ts';
import { EmbeddingsRequestSchema, textInputs } from './embeddings-request-schema.ts';
import type { MediaRouteDeps } from './register-media-routes.ts';

/**
 * `POST /v1/embeddings` in OpenAI's wire format, for OpenAI-kind and Gemini models
 * alike, billed per input token at the model's input price.
 *
 * Token-id inputs are refused (400, param `input`): the canonical EmbeddingRequest
 * carries text, token ids only mean something to one tokenizer (cl100k for
 * text-embedding-3, nothing at all for Gemini), and decoding them to text would not
 * round-trip exactly. Passing them through to OpenAI-kind providers needs
 * `EmbeddingRequest.input` to admit `number[][]`.
 */
export async function embeddingsRoute(app: FastifyInstance, deps: MediaRouteDeps): Promise<void> {
  app.post('/embeddings', { bodyLimit: LARGE_BODY_LIMIT, preHandler: requireKey(deps.authenticator, { kinds: ['model'] }) }, async (request, reply) => {
    const body = parseInput(EmbeddingsRequestSchema, request.body);
    const input = textInputs(body.input);
    if (!input) {
      throw new JunctionError('invalid_request', 'Token-id inputs are not supported by this gateway; send the text as a string or an array of strings.', { param: 'input' });
    }
    // Byte-level BPE never makes more tokens than UTF-8 bytes, so bytes bound the bill.
    const maxInputTokens = input.reduce((total, text) => total + Buffer.byteLength(text, 'utf8'), 0);
    const result = await deps.unary.run(callContextFrom(request, reply, 'embeddings'), {
      model: body.model,
      capability: 'embeddings',
      worstCase: (model) => computeEmbeddingCost(model, maxInputTokens),
      call: (adapter, model, signal) => requireMethod(adapter, 'embed', model)({ model: model.upstreamName, input, ...(body.dimensions !== undefined && { dimensions: body.dimensions }) }, { signal }),
      meter: (response, model) => ({
        costMicros: computeEmbeddingCost(model, response.usage.inputTokens),
        usage: { inputTokens: response.usage.inputTokens, outputTokens: 0 },
        units: { inputs: input.length },
      }),
    });
    if (result.rateLimit) reply.headers(rateLimitHeaders(result.rateLimit));
    const base64 = body.encoding_format === 'base64';
    const tokens = result.value.usage.inputTokens;
    return {
      object: 'list',
      data: result.value.embeddings.map((vector, index) => ({ object: 'embedding', index, embedding: base64 ? encodeFloat32Base64(vector) : vector })),
      model: result.model.id,
      usage: { prompt_tokens: tokens, total_tokens: tokens, cost: microsToUsd(result.costMicros) },
    };
  });
}

/** OpenAI's base64 encoding: the vector as little-endian float32, whatever the host's byte order. */
export function encodeFloat32Base64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}
