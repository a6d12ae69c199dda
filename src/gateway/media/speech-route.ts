import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { computeSpeechCost } from '../../catalog/costs.ts';
import { requireKey } from '../../http/auth-hook.ts';
import { parseInput } from '../../http/parse-body.ts';
import { rateLimitHeaders } from '../../pipeline/rate-limiter.ts';
import { requireMethod } from '../../pipeline/unary-pipeline.ts';
import { callContextFrom } from '../call-context-from-request.ts';
import { checkMediaParams } from './check-media-params.ts';
import type { MediaRouteDeps } from './register-media-routes.ts';

export const SpeechRequestSchema = z.strictObject({
  model: z.string().min(1),
  // OpenAI's own limit; it also keeps the exact reservation small.
  input: z.string().min(1).max(4096),
  voice: z.union([z.string().min(1), z.strictObject({ id: z.string().min(1) })]),
  instructions: z.string().optional(),
  response_format: z.string().optional(),
  speed: z.number().optional(),
  // `sse` wraps the audio in server-sent events: a different protocol, not offered here.
  stream_format: z
    .enum(['audio', 'sse'])
    .optional()
    .refine((format) => format !== 'sse', "only 'audio' is supported"),
});

/**
 * `POST /v1/audio/speech`: JSON in, audio bytes out, passed to the client as the
 * upstream produces them, with the upstream's content type.
 *
 * Billing: the price is per input character, so the reservation is the exact cost and
 * the pipeline settles it as soon as the upstream has accepted the call (its headers
 * arrived), before the first audio byte is relayed. A client that disconnects
 * mid-stream is therefore billed for all the characters — as the upstream bills us:
 * it synthesises the whole input once it has accepted it. The disconnect still aborts
 * the upstream request, so no more bytes are fetched for nobody.
 */
export async function speechRoute(app: FastifyInstance, deps: MediaRouteDeps): Promise<void> {
  app.post('/audio/speech', { preHandler: deps.auth ?? requireKey(deps.authenticator, { kinds: ['model'] }) }, async (request, reply) => {
    const body = parseInput(SpeechRequestSchema, request.body);
    const voice = body.voice;
    // A custom voice (`{ id }`) is passed on as given: only the provider knows its voices.
    const providerChecks = typeof voice === 'string' ? [] : ['voice'];
    const options = { instructions: body.instructions, response_format: body.response_format, speed: body.speed };
    const params = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
    // Characters as the user sees them (code points), not UTF-16 units.
    const characters = [...body.input].length;

    const result = await deps.unary.run(callContextFrom(request, reply, 'audio.speech'), {
      model: body.model,
      capability: 'audio_speech',
      worstCase: (model) => {
        checkMediaParams(model, typeof voice === 'string' ? { voice, ...params } : params, providerChecks);
        return computeSpeechCost(model, characters);
      },
      call: (adapter, model, signal) => requireMethod(adapter, 'speech', model)({ model: model.upstreamName, input: body.input, voice, params }, { signal }),
      meter: (_response, model) => ({ costMicros: computeSpeechCost(model, characters), units: { characters } }),
    });
    if (result.rateLimit) reply.headers(rateLimitHeaders(result.rateLimit));
    // fastify pipes the stream with backpressure; an upstream failure mid-stream destroys
    // the response (the client sees a truncated body, never a clean end), and a client
    // that leaves destroys the stream, which releases the upstream body.
    return reply.header('content-type', result.value.contentType).send(Readable.from(result.value.body, { objectMode: false }));
  });
}
