import { JunctionError } from '../../core/errors.ts';
import type { ModelMessage, ModelRequest } from '../../core/model-types.ts';
import type { ProviderRegistry } from '../../providers/provider-registry.ts';
import { admit, type AdmissionDeps } from '../../pipeline/admission.ts';
import type { CallContext } from '../../pipeline/call-context.ts';
import type { RateLimitState } from '../../pipeline/rate-limiter.ts';
import { DEFAULT_RETRY_POLICY, toClientError, withRetriesAndFallbacks } from '../../pipeline/upstream-attempts.ts';
import type { DeploymentRouter } from '../../routing/deployment-router.ts';
import { countLocalTokens } from './local-token-counter.ts';

export type CountTokensDeps = AdmissionDeps & { providers: ProviderRegistry; router?: DeploymentRouter };

/**
 * Input tokens of a canonical request on the model it names, for
 * /v1/messages/count_tokens and Gemini's :countTokens. Both are free (no reservation,
 * no usage row) but pass the same gates as a call: rate limit, plan and allowlist,
 * so a key cannot probe models it may not use.
 *
 * The count goes where a call would go: to the model's provider, or over its deployments in
 * the router's order with the same retries and fallbacks. A provider with a counting
 * endpoint answers (Anthropic, Gemini, Vertex AI, Bedrock: exact, and what they will bill);
 * the others (OpenAI has none) are counted locally with o200k_base (the tokenizer of
 * OpenAI's current models) plus the per-message framing OpenAI documents. Shared by both
 * front-ends, hence here once.
 */
export async function countInputTokens(
  deps: CountTokensDeps,
  context: CallContext,
  requested: string,
  request: Omit<ModelRequest, 'model'>,
): Promise<{ inputTokens: number; rateLimit: RateLimitState | undefined }> {
  const { candidates, rateLimit } = await admit(deps, context, { model: requested, capability: 'chat' });
  const model = candidates[0];
  if (!model) throw new JunctionError('model_not_found', `The model '${requested}' does not exist.`, { param: 'model' });
  try {
    const counted = await withRetriesAndFallbacks(
      [model],
      deps.providers,
      DEFAULT_RETRY_POLICY,
      context.signal,
      async (adapter, served) => {
        const upstream = { model: served.upstreamName, ...request };
        const answer = await adapter.countTokens?.(upstream, { signal: context.signal });
        return answer === undefined ? await countLocally(upstream) : answer.inputTokens;
      },
      deps.router,
    );
    return { inputTokens: counted.value, rateLimit };
  } catch (error) {
    throw toClientError(error, model);
  }
}

/** OpenAI's framing: 3 tokens per message, 3 to prime the reply. */
const TOKENS_PER_MESSAGE = 3;
const REPLY_PRIMING_TOKENS = 3;
/** A 1024×1024 image at high detail on gpt-4o: 85 base + 4 tiles × 170. */
const TOKENS_PER_IMAGE = 765;

/** The counts of a local count: its texts go to the tokenizer thread, the rest is fixed framing. */
async function countLocally(request: ModelRequest): Promise<number> {
  const texts: string[] = [];
  let fixed = REPLY_PRIMING_TOKENS;
  for (const message of request.messages) fixed += TOKENS_PER_MESSAGE + collectTexts(message, texts);
  if (request.tools && request.tools.length > 0) texts.push(JSON.stringify(request.tools));
  const counts = await countLocalTokens(texts);
  return counts.reduce((sum, count) => sum + count, fixed);
}

/** Pushes the message's texts; returns its tokens that are not text (images). */
function collectTexts(message: ModelMessage, texts: string[]): number {
  switch (message.role) {
    case 'system':
    case 'tool':
      texts.push(message.content);
      return 0;
    case 'user': {
      let images = 0;
      for (const part of message.content) {
        if (part.type === 'text') texts.push(part.text);
        else images += TOKENS_PER_IMAGE;
      }
      return images;
    }
    case 'assistant':
      for (const part of message.content) {
        if (part.type === 'tool-call') texts.push(part.name, part.arguments);
        else texts.push(part.text);
      }
      return 0;
  }
}
