import type { FinishReason, ModelStreamEvent } from '../../core/model-types.ts';
import type { SseEvent } from '../http/sse-events.ts';
import { UpstreamError } from '../upstream-error.ts';
import { readGeminiErrorBody } from './gemini-error.ts';
import type { GeminiUsageMetadata } from './gemini-wire-schemas.ts';
import { mapFinishReason, mapGeminiUsage, mapPart, parseGenerateResponse } from './map-generate-response.ts';

/**
 * `:streamGenerateContent?alt=sse` chunks → canonical stream events. Each chunk is a
 * whole GenerateContentResponse: text arrives in pieces, a function call arrives whole
 * (so it becomes tool-call-start plus one tool-call-delta). usageMetadata is cumulative
 * and repeated, so only the last one is reported, once, right before `finish`.
 * A stream that ends without a finishReason was cut off and throws.
 */
export async function* mapGenerateStream(batches: AsyncIterable<SseEvent[]>): AsyncGenerator<ModelStreamEvent> {
  let toolCount = 0;
  let usage: GeminiUsageMetadata | undefined;
  let finishReason: FinishReason | undefined;
  let sentMetadata = false;

  for await (const batch of batches) for (const sse of batch) {
    if (sse.data.trim() === '') continue;
    const json = parseJson(sse.data);
    // Google reports late failures as an error object inside the stream.
    const error = readGeminiErrorBody(json);
    if (error !== undefined) throw error;
    const chunk = parseGenerateResponse(json);
    if (!sentMetadata && (chunk.responseId != null || chunk.modelVersion != null)) {
      sentMetadata = true;
      yield {
        type: 'response-metadata',
        ...(chunk.responseId == null ? {} : { id: chunk.responseId }),
        ...(chunk.modelVersion == null ? {} : { model: chunk.modelVersion }),
      };
    }
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      for (const mapped of mapPart(part, () => `call_${toolCount}`)) {
        if (mapped.type === 'text') yield { type: 'text-delta', delta: mapped.text };
        else if (mapped.type === 'reasoning') {
          if (mapped.text !== '') yield { type: 'reasoning-delta', delta: mapped.text };
          if (mapped.signature !== undefined) yield { type: 'reasoning-signature', signature: mapped.signature };
        } else {
          const index = toolCount++;
          yield { type: 'tool-call-start', index, id: mapped.id, name: mapped.name };
          yield { type: 'tool-call-delta', index, argumentsDelta: mapped.arguments };
        }
      }
    }
    if (chunk.usageMetadata != null) usage = chunk.usageMetadata;
    const candidateFinished = chunk.candidates?.[0]?.finishReason != null;
    if (candidateFinished || chunk.promptFeedback?.blockReason != null) {
      finishReason = mapFinishReason(chunk, toolCount > 0);
    }
  }
  if (finishReason === undefined) {
    throw new UpstreamError('Gemini stream ended without a finishReason', {
      status: 0,
      upstreamMessage: 'upstream stream ended before the response was complete',
    });
  }
  yield { type: 'usage', usage: mapGeminiUsage(usage ?? {}) };
  yield { type: 'finish', finishReason };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamError('Gemini stream sent a chunk that is not JSON', {
      status: 502,
      retryable: false,
      upstreamMessage: 'upstream sent a malformed stream chunk',
    });
  }
}
