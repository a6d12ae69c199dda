import type { FastifyInstance } from 'fastify';
import { LARGE_BODY_LIMIT } from '../../http/body-limits.ts';
import { isJunctionError, JunctionError } from '../../core/errors.ts';
import { requireKey } from '../../http/auth-hook.ts';
import { sendInOrder } from '../../http/send-in-order.ts';
import { SseWriter } from '../../http/sse-writer.ts';
import type { KeyAuthenticator } from '../../keys/key-authenticator.ts';
import type { ChatPipeline } from '../../pipeline/chat-pipeline.ts';
import { forEachEvent } from '../../core/settled-event-stream.ts';
import { rateLimitHeaders } from '../../pipeline/rate-limiter.ts';
import { callContextFrom } from '../call-context-from-request.ts';
import { PROVIDER_HEADER } from '../../routing/provider-header.ts';
import { cacheHeaders, takeCacheOption } from '../response-cache-option.ts';
import { carryUnknownFields, droppedParamsHeaders, readTolerantly, type TolerantBody, type UnknownFields } from '../tolerant-reader.ts';
import { liftCacheControlHints } from './cache-control-hints.ts';
import { ChatChunkEncoder } from './chat-chunk-encoder.ts';
import { type ChatRequest, ChatRequestSchema } from './chat-request-schema.ts';
import { isPlainChatRequest } from './plain-chat-request.ts';
import { toChatInput } from './convert-chat-request.ts';
import { chatCompletionJson } from './render-chat-response.ts';

const NOTHING_UNKNOWN: UnknownFields = { topLevel: undefined, nested: [] };

export type ChatRouteDeps = { authenticator: KeyAuthenticator; chat: ChatPipeline };

/** `POST /v1/chat/completions`: the OpenAI wire format in front of every provider. */
export async function chatCompletionsRoute(app: FastifyInstance, deps: ChatRouteDeps): Promise<void> {
  app.post('/chat/completions', { bodyLimit: LARGE_BODY_LIMIT, preHandler: requireKey(deps.authenticator, { kinds: ['model'] }) }, async (request, reply) => {
    const cache = takeCacheOption(request.body);
    const { body, unknown }: TolerantBody<ChatRequest> = isPlainChatRequest(request.body) ? { body: request.body, unknown: NOTHING_UNKNOWN } : readTolerantly(ChatRequestSchema, request.body);
    const input = toChatInput(body);
    liftCacheControlHints(input.request, unknown);
    if (cache) input.cache = cache;
    carryUnknownFields(input.request, 'openai', unknown);
    const context = callContextFrom(request, reply, 'chat.completions');
    const created = Math.floor(Date.now() / 1000);

    if (!body.stream) {
      const result = await deps.chat.generate(context, input);
      if (result.rateLimit) reply.headers(rateLimitHeaders(result.rateLimit));
      reply.headers(droppedParamsHeaders('openai', result.model.providerKind, unknown));
      reply.header(PROVIDER_HEADER, result.model.providerId);
      reply.headers(cacheHeaders(result));
      // Serialized here (fastify's default for an object is the same JSON, typed alike).
      reply.type('application/json; charset=utf-8');
      return chatCompletionJson(result.response, {
        id: result.generationId,
        model: result.model.id,
        created,
        costMicros: result.costMicros,
        provider: result.model.providerId,
      });
    }

    // Errors up to here (limits, unknown model, upstream refusing before its first
    // byte) are ordinary JSON errors; after the headers they become an error frame.
    const call = await deps.chat.stream(context, input);
    reply.headers(droppedParamsHeaders('openai', call.model.providerKind, unknown));
    reply.header(PROVIDER_HEADER, call.model.providerId);
    reply.headers(cacheHeaders(call));
    const sse = new SseWriter(reply, call.rateLimit && rateLimitHeaders(call.rateLimit));
    const encoder = new ChatChunkEncoder({ id: call.generationId, model: call.model.id, created, provider: call.model.providerId });
    try {
      const send = (chunk: string) => sse.sendJson(chunk);
      await forEachEvent(call.events, (event) => sendInOrder(encoder.encode(event), send));
      const outcome = call.outcome();
      for (const chunk of encoder.finish(outcome?.costMicros ?? 0, body.stream_options?.include_usage === true, outcome?.usage)) {
        await sse.sendJson(chunk);
      }
      sse.end('data: [DONE]\n\n');
    } catch (error) {
      const failure = isJunctionError(error) ? error : new JunctionError('internal_error', 'The stream failed.', { cause: error });
      if (failure.code !== 'client_closed_request') request.log.warn({ err: error }, 'stream ended with an error');
      await sse.send(failure.toOpenAIBody());
      sse.end();
    }
    return reply;
  });
}
