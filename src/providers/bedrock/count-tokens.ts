/**
 * Bedrock's CountTokens (`POST /model/{modelId}/count-tokens`) for a Converse request:
 * `{"input": {"converse": {messages, system, toolConfig, additionalModelRequestFields}}}` →
 * `{"inputTokens": n}`.
 */
import type { ModelRequest } from '../../core/model-types.ts';
import type { TokenCount } from '../adapter.ts';
import { UpstreamError } from '../upstream-error.ts';
import { CountTokensResponseSchema } from './bedrock-wire-schemas.ts';
import { convertConverseRequest } from './convert-converse-request.ts';

/** The Converse fields CountTokens takes; inference settings and guardrails are the call's, not the count's. */
const COUNT_FIELDS = ['messages', 'system', 'toolConfig', 'additionalModelRequestFields'] as const;

/** Cross-region inference profiles (`us.anthropic.…`): CountTokens takes the bare model id, whose tokenizer they share. */
const INFERENCE_PROFILE_PREFIX = /^(?:us|us-gov|eu|apac|jp|au|ca|global)\./;

export const countTokensModelPath = (model: string): string => `/model/${encodeURIComponent(model.replace(INFERENCE_PROFILE_PREFIX, ''))}/count-tokens`;

export function countTokensBody(request: ModelRequest): string {
  const full: Record<string, unknown> = { ...convertConverseRequest(request) };
  const converse: Record<string, unknown> = {};
  for (const field of COUNT_FIELDS) if (full[field] !== undefined) converse[field] = full[field];
  return JSON.stringify({ input: { converse } });
}

export function readBedrockTokenCount(text: string): TokenCount {
  let parsed: ReturnType<typeof CountTokensResponseSchema.safeParse> | undefined;
  try {
    parsed = CountTokensResponseSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) throw new UpstreamError('/count-tokens returned an unexpected body', { status: 502, retryable: false, upstreamMessage: 'upstream returned an unexpected response body' });
  return { inputTokens: parsed.data.inputTokens };
}

/**
 * Bedrock counts for some models only and answers a ValidationException (400) for the rest
 * (Nova, Llama…); an IAM policy may allow Converse but not bedrock:CountTokens (403). Both
 * are counted locally, as every Bedrock model was before it had a counting endpoint.
 */
export const cannotCount = (error: unknown): boolean => error instanceof UpstreamError && (error.status === 400 || error.status === 403);
