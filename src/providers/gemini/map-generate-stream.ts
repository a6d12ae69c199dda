import type { FinishReason, ModelStreamEvent } from '../../core/model-types.ts';
import { mapSseStream, type SseEventMapping } from '../http/mapped-event-stream.ts';
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
export function mapGenerateStream(batches: AsyncIterable<SseEvent[]>): AsyncIterableIterator<ModelStreamEvent> {
  return mapSseStream(batches, new GenerateChunkMapping());
}

class GenerateChunkMapping implements SseEventMapping {
  #toolCount = 0;
  #usage: GeminiUsageMetadata | undefined;
  #finishReason: FinishReason | undefined;
  #sentMetadata = false;

  map(sse: SseEvent, out: ModelStreamEvent[]): boolean {
    if (sse.data.trim() === '') return false;
    const json = parseJson(sse.data);
    // Google reports late failures as an error object inside the stream.
    const error = readGeminiErrorBody(json);
    if (error !== undefined) throw error;
    const chunk = parseGenerateResponse(json);
    if (!this.#sentMetadata && (chunk.responseId != null || chunk.modelVersion != null)) {
      this.#sentMetadata = true;
      out.push({
        type: 'response-metadata',
        ...(chunk.responseId == null ? {} : { id: chunk.responseId }),
        ...(chunk.modelVersion == null ? {} : { model: chunk.modelVersion }),
      });
    }
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      for (const mapped of mapPart(part, () => `call_${this.#toolCount}`)) {
        if (mapped.type === 'text') out.push({ type: 'text-delta', delta: mapped.text });
        else if (mapped.type === 'reasoning') {
          if (mapped.text !== '') out.push({ type: 'reasoning-delta', delta: mapped.text });
          if (mapped.signature !== undefined) out.push({ type: 'reasoning-signature', signature: mapped.signature });
        } else {
          const index = this.#toolCount++;
          out.push({ type: 'tool-call-start', index, id: mapped.id, name: mapped.name });
          out.push({ type: 'tool-call-delta', index, argumentsDelta: mapped.arguments });
        }
      }
    }
    if (chunk.usageMetadata != null) this.#usage = chunk.usageMetadata;
    const candidateFinished = chunk.candidates?.[0]?.finishReason != null;
    if (candidateFinished || chunk.promptFeedback?.blockReason != null) {
      this.#finishReason = mapFinishReason(chunk, this.#toolCount > 0);
    }
    // Read on to the end of the body: usage is taken from the last chunk that carries it.
    return false;
  }

  end(out: ModelStreamEvent[]): void {
    if (this.#finishReason === undefined) {
      throw new UpstreamError('Gemini stream ended without a finishReason', {
        status: 0,
        upstreamMessage: 'upstream stream ended before the response was complete',
      });
    }
    out.push({ type: 'usage', usage: mapGeminiUsage(this.#usage ?? {}) });
    out.push({ type: 'finish', finishReason: this.#finishReason });
  }
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
