import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { computeImageCost, worstCaseImageCost } from '../../catalog/costs.ts';
import { microsToUsd } from '../../core/money.ts';
import { requireKey } from '../../http/auth-hook.ts';
import { parseInput } from '../../http/parse-body.ts';
import { rateLimitHeaders } from '../../pipeline/rate-limiter.ts';
import { requireMethod } from '../../pipeline/unary-pipeline.ts';
import { callContextFrom } from '../call-context-from-request.ts';
import { checkMediaParams } from './check-media-params.ts';
import type { MediaRouteDeps } from './register-media-routes.ts';

/**
 * The images.generate body of the official OpenAI client. Strict at the top level;
 * which values each model accepts (dall-e-3 takes n = 1 only, gpt-image-1 no `style`)
 * is the model's media_params_schema's business, checked once the model is resolved.
 */
export const ImagesRequestSchema = z.strictObject({
  model: z.string().min(1),
  prompt: z.string().min(1),
  n: z.number().int().min(1).max(10).nullish(),
  size: z.string().nullish(),
  quality: z.string().nullish(),
  style: z.string().nullish(),
  response_format: z.enum(['url', 'b64_json']).nullish(),
  background: z.string().nullish(),
  output_format: z.string().nullish(),
  output_compression: z.number().int().min(0).max(100).nullish(),
  moderation: z.string().nullish(),
  user: z.string().nullish(),
  // Streamed partial images are a different wire protocol (SSE); not offered here.
  stream: z
    .boolean()
    .nullish()
    .refine((stream) => stream !== true, 'streaming image generation is not supported'),
  partial_images: z.number().int().nullish(),
});

/** `POST /v1/images/generations`: billed per image by size and quality, or by tokens when the model reports them. */
export async function imagesRoute(app: FastifyInstance, deps: MediaRouteDeps): Promise<void> {
  app.post('/images/generations', { preHandler: deps.auth ?? requireKey(deps.authenticator, { kinds: ['model'] }) }, async (request, reply) => {
    const body = parseInput(ImagesRequestSchema, request.body);
    const count = body.n ?? 1;
    const size = body.size ?? undefined;
    const quality = body.quality ?? undefined;
    const options = {
      size,
      quality,
      style: body.style ?? undefined,
      response_format: body.response_format ?? undefined,
      background: body.background ?? undefined,
      output_format: body.output_format ?? undefined,
      output_compression: body.output_compression ?? undefined,
      moderation: body.moderation ?? undefined,
    };
    const mediaParams = { n: body.n ?? undefined, ...options };
    const params = withoutUndefined({ ...options, user: body.user ?? undefined });
    const promptBytes = Buffer.byteLength(body.prompt, 'utf8');

    const result = await deps.unary.run(callContextFrom(request, reply, 'images.generations'), {
      model: body.model,
      capability: 'image_generation',
      // Checked here, where the model is known; a refusal is logged as a rejected call.
      worstCase: (model) => {
        checkMediaParams(model, mediaParams);
        return worstCaseImageCost(model, { count, promptTokens: promptBytes });
      },
      call: (adapter, model, signal) => requireMethod(adapter, 'generateImages', model)({ model: model.upstreamName, prompt: body.prompt, n: count, params }, { signal }),
      // Billed for the images delivered, which is what the upstream charges for.
      meter: (response, model) => ({
        costMicros: computeImageCost(model, { count: response.data.length, size, quality, usage: response.usage }),
        ...(response.usage && { usage: response.usage }),
        units: { images: response.data.length },
      }),
    });
    if (result.rateLimit) reply.headers(rateLimitHeaders(result.rateLimit));
    const { created, data, usage, extra } = result.value;
    return {
      ...extra,
      created,
      data,
      usage: {
        ...(usage && { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens }),
        cost: microsToUsd(result.costMicros),
      },
    };
  });
}

const withoutUndefined = (record: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
