import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { computeEmbeddingCost } from '../../catalog/costs.ts';
import { requireKey } from '../../http/auth-hook.ts';
import { parseInput } from '../../http/parse-body.ts';
import { estimateTextTokens } from '../../core/estimate-text-tokens.ts';
import { rateLimitHeaders } from '../../pipeline/rate-limiter.ts';
import { requireMethod } from '../../pipeline/unary-pipeline.ts';
import { callContextFrom } from '../call-context-from-request.ts';
import type { MediaRouteDeps } from './register-media-routes.ts';

/** OpenAI leaves `model` optional and means its current moderation model. */
export const DEFAULT_MODERATION_MODEL = 'openai/omni-moderation-latest';

const TextInput = z.strictObject({ type: z.literal('text'), text: z.string() });
const ImageInput = z.strictObject({ type: z.literal('image_url'), image_url: z.strictObject({ url: z.string().min(1) }) });

export const ModerationsRequestSchema = z.strictObject({
  model: z.string().min(1).optional(),
  input: z.union([z.string(), z.array(z.string()).min(1), z.array(z.discriminatedUnion('type', [TextInput, ImageInput])).min(1)]),
});

/**
 * `POST /v1/moderations`. Free upstream, and the catalog prices moderation models at 0,
 * but it still goes through the pipeline: the key's kind, allowlist and rate limit
 * apply and every call is in the usage log. Should an operator price a moderation
 * model, the text is billed like embedding input (bytes bound the reservation, an
 * estimate per script settles it: the upstream reports no token count).
 */
export async function moderationsRoute(app: FastifyInstance, deps: MediaRouteDeps): Promise<void> {
  app.post('/moderations', { preHandler: requireKey(deps.authenticator, { kinds: ['model'] }) }, async (request, reply) => {
    const body = parseInput(ModerationsRequestSchema, request.body);
    const texts =
      typeof body.input === 'string'
        ? [body.input]
        : body.input.map((item) => {
            if (typeof item === 'string') return item;
            return item.type === 'text' ? item.text : '';
          });
    const inputBytes = Buffer.byteLength(JSON.stringify(body.input), 'utf8');
    const estimatedTokens = texts.reduce((total, text) => total + estimateTextTokens(text), 0);
    const result = await deps.unary.run(callContextFrom(request, reply, 'moderations'), {
      model: body.model ?? DEFAULT_MODERATION_MODEL,
      capability: 'moderation',
      worstCase: (model) => computeEmbeddingCost(model, inputBytes),
      call: (adapter, model, signal) => requireMethod(adapter, 'moderate', model)({ model: model.upstreamName, input: body.input }, { signal }),
      meter: (response, model) => ({ costMicros: computeEmbeddingCost(model, estimatedTokens), units: { inputs: response.results.length } }),
    });
    if (result.rateLimit) reply.headers(rateLimitHeaders(result.rateLimit));
    return { id: result.value.id, model: result.model.id, results: result.value.results };
  });
}
