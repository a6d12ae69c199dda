import type { FastifyInstance } from 'fastify';
import { computeChatCost } from '../../catalog/costs.ts';
import { qualifyNativeModelName } from '../../catalog/native-model-name.ts';
import { isJunctionError, JunctionError } from '../../core/errors.ts';
import { requireKey } from '../../http/auth-hook.ts';
import { LARGE_BODY_LIMIT } from '../../http/body-limits.ts';
import { sendInOrder } from '../../http/send-in-order.ts';
import { SseWriter } from '../../http/sse-writer.ts';
import { forEachEvent } from '../../core/settled-event-stream.ts';
import type { KeyAuthenticator } from '../../keys/key-authenticator.ts';
import type { ChatPipeline } from '../../pipeline/chat-pipeline.ts';
import { estimateInputTokens } from '../../pipeline/estimate-input-tokens.ts';
import { rateLimitHeaders } from '../../pipeline/rate-limiter.ts';
import { callContextFrom } from '../call-context-from-request.ts';
import { PROVIDER_HEADER } from '../../routing/provider-header.ts';
import { cacheHeaders, takeCacheOption } from '../response-cache-option.ts';
import { carryUnknownFields, droppedParamsHeaders, readTolerantly } from '../tolerant-reader.ts';
import { convertMessagesBody } from './convert-messages-request.ts';
import { countInputTokens, type CountTokensDeps } from './count-input-tokens.ts';
import { convertCountTokensBody, renderCountTokens } from './count-tokens.ts';
import { CountTokensRequestSchema, MessagesRequestSchema } from './messages-request-schema.ts';
import { renderMessagesResponse } from './render-messages-response.ts';
import { refuseThreads } from './refuse-threads.ts';
import { warmLocalTokenCounter } from './local-token-counter.ts';
import { MessagesStreamEncoder } from './render-messages-stream.ts';

/** After the start's own work, so loading the tokenizer never competes with it. */
const TOKENIZER_WARM_DELAY_MS = 3_000;

export type MessagesRouteDeps = CountTokensDeps & { authenticator: KeyAuthenticator; chat: ChatPipeline };

/**
 * `POST /v1/messages` and `/v1/messages/count_tokens`: the Anthropic Messages wire
 * format in front of every provider. A front-end only: the call goes through the same
 * ChatPipeline as /v1/chat/completions, so gates, reservation, usage rows and cost are
 * those of the same call there. Errors take Anthropic's shape (errorFormat below).
 */
export async function messagesRoutes(app: FastifyInstance, deps: MessagesRouteDeps): Promise<void> {
  const routeOptions = {
    bodyLimit: LARGE_BODY_LIMIT,
    preHandler: requireKey(deps.authenticator, { kinds: ['model'] }),
    config: { errorFormat: 'anthropic' },
  } as const;

  // Counts on OpenAI-format models use the local tokenizer: its thread is started once the
  // server is ready, so the first count does not wait for it to load.
  if (deps.catalog.models.some((model) => model.providerKind === 'openai' || model.providerKind === 'openai-compatible')) {
    app.addHook('onReady', async () => {
      setTimeout(warmLocalTokenCounter, TOKENIZER_WARM_DELAY_MS).unref();
    });
  }

  app.post('/messages', routeOptions, async (request, reply) => {
    if (refuseThreads(request.body, reply)) return reply;
    const cache = takeCacheOption(request.body);
    const { body, unknown } = readTolerantly(MessagesRequestSchema, request.body);
    const converted = convertMessagesBody(body);
    carryUnknownFields(converted.request, 'anthropic', unknown);
    const input = { model: qualifyNativeModelName(deps.catalog, converted.model, 'anthropic'), request: converted.request, ...(cache && { cache }) };
    const context = callContextFrom(request, reply, 'messages');

    if (!converted.stream) {
      const result = await deps.chat.generate(context, input);
      if (result.rateLimit) reply.headers(rateLimitHeaders(result.rateLimit));
      reply.headers(droppedParamsHeaders('anthropic', result.model.providerKind, unknown));
      reply.header(PROVIDER_HEADER, result.model.providerId);
      reply.headers(cacheHeaders(result));
      return renderMessagesResponse(result.response, {
        model: body.model,
        costMicros: result.costMicros,
        ...(body.stop_sequences && { stopSequences: body.stop_sequences }),
      });
    }

    // Before the headers, failures are ordinary Anthropic error bodies; after them,
    // an `event: error` frame, as Anthropic's own API does mid-stream.
    const call = await deps.chat.stream(context, input);
    reply.headers(droppedParamsHeaders('anthropic', call.model.providerKind, unknown));
    reply.header(PROVIDER_HEADER, call.model.providerId);
    reply.headers(cacheHeaders(call));
    const sse = new SseWriter(reply, call.rateLimit && rateLimitHeaders(call.rateLimit));
    const encoder = new MessagesStreamEncoder({
      model: body.model,
      inputTokensEstimate: Math.ceil(estimateInputTokens(converted.request) / 4),
      ...(body.stop_sequences && { stopSequences: body.stop_sequences }),
    });
    try {
      const send = (frame: { data: unknown; event: string }) => sse.send(frame.data, frame.event);
      await forEachEvent(call.events, (event) => {
        // The cost goes out in message_delta, which `finish` emits; usage precedes it,
        // and this is the pipeline's own formula on the same usage, so the numbers agree
        // (a cache hit's outcome is known from the start: what the hit costs).
        if (event.type === 'usage') encoder.setCost(call.outcome()?.costMicros ?? computeChatCost(call.model, event.usage));
        return sendInOrder(encoder.push(event), send);
      });
      // An upstream that ended without a finish event still gets a well-formed ending,
      // with the pipeline's (possibly estimated) cost; a no-op after a real finish.
      const outcome = call.outcome();
      if (outcome) encoder.setCost(outcome.costMicros);
      for (const frame of encoder.push({ type: 'finish', finishReason: { unified: 'other', raw: undefined } })) {
        await sse.send(frame.data, frame.event);
      }
      sse.end();
    } catch (error) {
      const failure = isJunctionError(error) ? error : new JunctionError('internal_error', 'The stream failed.', { cause: error });
      if (failure.code !== 'client_closed_request') request.log.warn({ err: error }, 'messages stream ended with an error');
      const frame = encoder.errorEvent(failure);
      await sse.send(frame.data, frame.event);
      sse.end();
    }
    return reply;
  });

  app.post('/messages/count_tokens', routeOptions, async (request, reply) => {
    // Unknown fields cannot change a count: read tolerantly and left out.
    const { body } = readTolerantly(CountTokensRequestSchema, request.body);
    const { model, request: prompt } = convertCountTokensBody(body);
    const counted = await countInputTokens(deps, callContextFrom(request, reply, 'messages.count_tokens'), qualifyNativeModelName(deps.catalog, model, 'anthropic'), prompt);
    if (counted.rateLimit) reply.headers(rateLimitHeaders(counted.rateLimit));
    return renderCountTokens(counted.inputTokens);
  });
}
