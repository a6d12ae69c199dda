import { parseToolArguments } from '../../core/tool-arguments.ts';
import type { FinishReason, ModelStreamEvent, Usage } from '../../core/model-types.ts';
import { type GenerateContentResponseOut, type GeminiPartOut, renderFinishReason, renderUsageMetadata, responseIdFor } from './render-generate-response.ts';

export type GenerateStreamOptions = {
  /** The catalog id from the URL path; reported as modelVersion. */
  model: string;
  includeThoughts: boolean;
};

type PendingTool = { id: string; name: string; arguments: string };

/**
 * Canonical stream events → `:streamGenerateContent?alt=sse` chunks, each a whole
 * GenerateContentResponse with one candidate:
 *
 * - a text delta is a chunk with one text part; a reasoning delta a chunk with one
 *   `thought` part, only when the request asked for includeThoughts;
 * - a reasoning signature waits for the next text or functionCall part, where Gemini
 *   puts it (or rides on the final chunk);
 * - tool calls are buffered and sent whole, as Gemini does, in one chunk as soon as
 *   anything else happens (parallel calls share that chunk);
 * - the last chunk carries finishReason and usageMetadata, with an empty text part so
 *   the SDK's `chunk.text` is '' rather than undefined.
 */
export class GenerateStreamEncoder {
  private readonly options: GenerateStreamOptions;
  private responseId: string | undefined;
  private readonly tools = new Map<number, PendingTool>();
  private pendingSignature: string | undefined;
  private usage: Usage | undefined;
  private costMicros: number | undefined;
  private finished = false;

  constructor(options: GenerateStreamOptions) {
    this.options = options;
  }

  setCost(costMicros: number): void {
    this.costMicros = costMicros;
  }

  push(event: ModelStreamEvent): GenerateContentResponseOut[] {
    if (this.finished) return [];
    switch (event.type) {
      case 'response-metadata':
        if (this.responseId === undefined && event.id !== undefined && event.id !== '') this.responseId = event.id;
        return [];
      case 'text-delta': {
        if (event.delta === '') return [];
        const out = this.flushTools();
        out.push(this.chunk([this.signed({ text: event.delta })]));
        return out;
      }
      case 'reasoning-delta': {
        if (!this.options.includeThoughts || event.delta === '') return [];
        const out = this.flushTools();
        out.push(this.chunk([{ text: event.delta, thought: true }]));
        return out;
      }
      case 'reasoning-signature': {
        const out = this.flushTools();
        this.pendingSignature = event.signature;
        return out;
      }
      case 'reasoning-redacted':
        return [];
      case 'tool-call-start':
        this.tools.set(event.index, { id: event.id, name: event.name, arguments: '' });
        return [];
      case 'tool-call-delta': {
        const tool = this.tools.get(event.index);
        if (tool !== undefined) tool.arguments += event.argumentsDelta;
        return [];
      }
      case 'usage':
        this.usage = event.usage;
        return this.flushTools();
      case 'finish':
        return this.finish(event.finishReason);
    }
  }

  private finish(finishReason: FinishReason): GenerateContentResponseOut[] {
    this.finished = true;
    const out = this.flushTools();
    const last = this.chunk([this.signed({ text: '' })]);
    const candidate = last.candidates[0];
    if (candidate !== undefined) candidate.finishReason = renderFinishReason(finishReason);
    last.usageMetadata = renderUsageMetadata(this.usage ?? { inputTokens: 0, outputTokens: 0 }, this.costMicros);
    out.push(last);
    return out;
  }

  private flushTools(): GenerateContentResponseOut[] {
    if (this.tools.size === 0) return [];
    const ordered = [...this.tools.entries()].sort(([a], [b]) => a - b);
    this.tools.clear();
    const parts = ordered.map(([, tool]) => this.signed({ functionCall: { name: tool.name, args: parseToolArguments(tool.arguments), id: tool.id } }));
    return [this.chunk(parts)];
  }

  private signed(part: GeminiPartOut): GeminiPartOut {
    if (this.pendingSignature === undefined) return part;
    const result = { ...part, thoughtSignature: this.pendingSignature };
    this.pendingSignature = undefined;
    return result;
  }

  private chunk(parts: GeminiPartOut[]): GenerateContentResponseOut {
    // One id for the whole stream, as Gemini repeats responseId on every chunk.
    this.responseId ??= responseIdFor(undefined);
    return {
      candidates: [{ content: { role: 'model', parts }, index: 0 }],
      modelVersion: this.options.model,
      responseId: this.responseId,
    };
  }
}
