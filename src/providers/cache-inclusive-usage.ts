import type { Usage } from '../core/model-types.ts';

/**
 * Anthropic and Bedrock count input tokens without those read from or written to the prompt
 * cache; canonical inputTokens is everything the prompt cost, so both are added back and
 * reported as its subsets.
 */
type Count = number | null | undefined;

export function cacheInclusiveUsage(parts: { uncachedInput: Count; output: Count; cacheRead: Count; cacheWrite: Count }): Usage {
  const cacheRead = parts.cacheRead ?? 0;
  const cacheWrite = parts.cacheWrite ?? 0;
  return {
    inputTokens: (parts.uncachedInput ?? 0) + cacheRead + cacheWrite,
    outputTokens: parts.output ?? 0,
    ...(cacheRead > 0 ? { cachedInputTokens: cacheRead } : {}),
    ...(cacheWrite > 0 ? { cacheWriteTokens: cacheWrite } : {}),
  };
}
