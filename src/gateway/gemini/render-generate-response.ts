import { parseToolArguments } from '../../core/tool-arguments.ts';
import { randomBytes } from 'node:crypto';
import { microsToUsd } from '../../core/money.ts';
import type { AssistantPart, FinishReason, ModelResponse, Usage } from '../../core/model-types.ts';

export type GeminiPartOut = {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { name: string; args: Record<string, unknown>; id?: string };
};

export type GeminiUsageOut = {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  /** Junction extra: what the call cost in USD; @google/genai copies usageMetadata as is. */
  cost?: number;
};

export type GeminiCandidateOut = {
  content: { role: 'model'; parts: GeminiPartOut[] };
  finishReason?: string;
  index: 0;
};

export type GenerateContentResponseOut = {
  candidates: GeminiCandidateOut[];
  usageMetadata?: GeminiUsageOut;
  modelVersion: string;
  responseId: string;
};

export type RenderGenerateOptions = {
  /** The catalog id from the URL path; reported as modelVersion. */
  model: string;
  /** From the request's thinkingConfig.includeThoughts: thought text is shown only then. */
  includeThoughts: boolean;
  costMicros?: number;
};

/**
 * Canonical response → GenerateContentResponse with one candidate. Tool calls keep
 * their canonical id in functionCall.id so a client that echoes the call back (as the
 * SDK's history helpers do) lets a non-Gemini upstream match its tool result.
 * Redacted reasoning has no Gemini form and is dropped.
 */
export function renderGenerateResponse(response: ModelResponse, options: RenderGenerateOptions): GenerateContentResponseOut {
  return {
    candidates: [
      {
        content: { role: 'model', parts: renderParts(response.content, options.includeThoughts) },
        finishReason: renderFinishReason(response.finishReason),
        index: 0,
      },
    ],
    usageMetadata: renderUsageMetadata(response.usage, options.costMicros),
    modelVersion: options.model,
    responseId: responseIdFor(response.id),
  };
}

/**
 * Reasoning → Gemini's layout: thought text as `thought: true` parts (when asked for),
 * and the signature on the next non-thought part, where Gemini itself puts it. A
 * signature stays on its thought part when another reasoning part follows (it would be
 * overwritten), and trails as an empty text part when nothing follows and thoughts are hidden.
 */
export function renderParts(content: AssistantPart[], includeThoughts: boolean): GeminiPartOut[] {
  const parts: GeminiPartOut[] = [];
  let pendingSignature: string | undefined;
  const signed = (part: GeminiPartOut): GeminiPartOut => {
    const result = pendingSignature === undefined ? part : { ...part, thoughtSignature: pendingSignature };
    pendingSignature = undefined;
    return result;
  };
  content.forEach((part, index) => {
    if (part.type === 'reasoning') {
      if (part.redactedData !== undefined) return;
      // Redacted reasoning renders as nothing, so it does not count as a following part.
      const next = content.slice(index + 1).find((later) => later.type !== 'reasoning' || later.redactedData === undefined);
      const nextIsReasoning = next?.type === 'reasoning';
      if (includeThoughts && part.text !== '') {
        const thought: GeminiPartOut = { text: part.text, thought: true };
        if (part.signature !== undefined && nextIsReasoning) thought.thoughtSignature = part.signature;
        else pendingSignature = part.signature ?? pendingSignature;
        parts.push(thought);
      } else {
        pendingSignature = part.signature ?? pendingSignature;
      }
    } else if (part.type === 'text') {
      if (part.text !== '' || pendingSignature !== undefined) parts.push(signed({ text: part.text }));
    } else {
      parts.push(signed({ functionCall: { name: part.name, args: parseToolArguments(part.arguments), id: part.id } }));
    }
  });
  if (pendingSignature !== undefined) {
    const last = parts.at(-1);
    if (last?.thought === true) last.thoughtSignature = pendingSignature;
    else parts.push({ text: '', thoughtSignature: pendingSignature });
  }
  return parts;
}

const GEMINI_FINISH_REASONS = new Set([
  'STOP',
  'MAX_TOKENS',
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'MALFORMED_FUNCTION_CALL',
  'IMAGE_SAFETY',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
]);

/** A Gemini upstream's own reason wins; others map from the unified one (tool calls end in STOP, as on Gemini). */
export function renderFinishReason(finishReason: FinishReason): string {
  if (finishReason.raw !== undefined && GEMINI_FINISH_REASONS.has(finishReason.raw)) return finishReason.raw;
  switch (finishReason.unified) {
    case 'stop':
    case 'tool-calls':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content-filter':
      return 'SAFETY';
    default:
      return 'OTHER';
  }
}

/** Gemini's candidatesTokenCount excludes thinking, which it reports as thoughtsTokenCount. */
export function renderUsageMetadata(usage: Usage, costMicros: number | undefined): GeminiUsageOut {
  const thoughts = usage.reasoningTokens ?? 0;
  const cached = usage.cachedInputTokens ?? 0;
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - thoughts),
    totalTokenCount: usage.inputTokens + usage.outputTokens,
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
    ...(costMicros === undefined ? {} : { cost: microsToUsd(costMicros) }),
  };
}

export function responseIdFor(upstreamId: string | undefined): string {
  return upstreamId === undefined || upstreamId === '' ? randomBytes(12).toString('base64url') : upstreamId;
}
