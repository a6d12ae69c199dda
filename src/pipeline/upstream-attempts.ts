import type { CatalogModel } from '../catalog/types.ts';
import type { CancelSignal } from '../core/cancel-signal.ts';
import { sleep } from './cancellable-sleep.ts';
import { JunctionError } from '../core/errors.ts';
import { UpstreamError } from '../providers/upstream-error.ts';
import type { ProviderAdapter } from '../providers/adapter.ts';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import { DeploymentRouter } from '../routing/deployment-router.ts';
import type { ProviderPreferences } from '../routing/provider-preferences.ts';
import { excludedByPreferences, tryDeployments } from './deployment-attempts.ts';

export type RetryPolicy = { retries: number; baseDelayMs: number; maxRetryAfterMs: number };
export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 2, baseDelayMs: 250, maxRetryAfterMs: 5_000 };

/**
 * Retry-After for an upstream 429 that said nothing: long enough for a provider's
 * per-second window to move on after our own retries, short enough that SDKs (which
 * ignore waits over 60 s) still honour it.
 */
export const DEFAULT_UPSTREAM_RETRY_AFTER_SECONDS = 5;

/**
 * `release`, set for a stream served by a deployment, ends its time in flight; `reckon`, set
 * when that deployment has a `tpm`, counts the tokens the call really used in its window.
 */
export type AttemptResult<T> = { value: T; model: CatalogModel; attempts: number; release?: () => void; reckon?: (tokens: number) => void };

/**
 * Tries each candidate model in order; on each, retries retryable upstream errors
 * (429, 5xx, timeouts) with exponential backoff, honouring a short Retry-After, then
 * moves to the next candidate (fallbacks). A model with deployments is tried deployment
 * by deployment in the router's order instead (deployment-attempts.ts). `attempt` must not
 * have sent anything to the client yet: callers only use this before the first byte, so
 * this is the one place that decides what may be tried again.
 */
export async function withRetriesAndFallbacks<T>(
  candidates: readonly CatalogModel[],
  providers: ProviderRegistry,
  policy: RetryPolicy,
  signal: CancelSignal,
  attempt: (adapter: ProviderAdapter, model: CatalogModel) => Promise<T>,
  router?: DeploymentRouter,
  preferences?: ProviderPreferences,
  holdInFlight = false,
  tokensOf: (model: CatalogModel) => number = () => 0,
): Promise<AttemptResult<T>> {
  let attempts = 0;
  let lastError: unknown;
  for (const model of candidates) {
    // Every model without deployments (nearly every call) stays on the direct path below.
    const { deployments } = model;
    if (deployments !== undefined) {
      const routed = await tryDeployments({
        model,
        deployments,
        providers,
        policy,
        signal,
        attempt,
        router: router ?? unsharedRouter(),
        preferences,
        attemptsBefore: attempts,
        defaultRetryAfterSeconds: DEFAULT_UPSTREAM_RETRY_AFTER_SECONDS,
        holdInFlight,
        tokens: tokensOf(model),
      });
      attempts = routed.attempts;
      if (routed.result) return routed.result;
      lastError = routed.error ?? lastError;
      continue;
    }
    const refused = preferences && excludedByPreferences(model, preferences);
    if (refused) {
      lastError = refused;
      continue;
    }
    const adapter = providers.get(model.providerId);
    if (!adapter) {
      lastError = new JunctionError('provider_not_configured', `The provider '${model.providerId}' is not configured.`);
      continue;
    }
    for (let retry = 0; retry <= policy.retries; retry += 1) {
      attempts += 1;
      try {
        return { value: await attempt(adapter, model), model, attempts };
      } catch (error) {
        if (signal.aborted) throw error;
        lastError = error;
        if (!(error instanceof UpstreamError) || !error.retryable) {
          if (error instanceof UpstreamError && error.status >= 400 && error.status < 500) throw error;
          break;
        }
        if (retry === policy.retries) break;
        const askedMs = (error.retryAfterSeconds ?? 0) * 1000;
        if (askedMs > policy.maxRetryAfterMs) break;
        const backoff = policy.baseDelayMs * 2 ** retry * (0.75 + Math.random() * 0.5);
        await sleep(Math.max(askedMs, backoff), signal);
      }
    }
  }
  throw lastError ?? new JunctionError('upstream_error', 'No upstream could serve the request.');
}

let fallbackRouter: DeploymentRouter | undefined;
/** For callers that bring no router of their own (tests of one pipeline): health kept here. */
const unsharedRouter = (): DeploymentRouter => {
  fallbackRouter ??= new DeploymentRouter();
  return fallbackRouter;
};

/** An upstream failure as the caller sees it: the provider's status class and message, never our key. */
export function toClientError(error: unknown, model: CatalogModel | undefined): JunctionError {
  if (error instanceof JunctionError) return error;
  if (error instanceof UpstreamError) {
    const provider = model?.providerId ?? 'the provider';
    // Only a provider that kept us waiting is a 504; one that refused the connection or
    // cut its answer short failed at once, which is a bad gateway (502), not a timeout.
    if (error.network === 'timeout') {
      return new JunctionError('upstream_timeout', `${provider} did not answer in time (${error.upstreamMessage}).`);
    }
    if (error.network === 'unreachable') {
      return new JunctionError('upstream_error', `${provider} could not be reached: ${error.upstreamMessage}.`);
    }
    if (error.status === 0) {
      return new JunctionError('upstream_error', `${provider} failed before completing its answer: ${error.upstreamMessage}.`);
    }
    // 401/403 from upstream are about the GATEWAY's provider key, not the caller's:
    // passing them on would tell the caller its own key is wrong. They are our 502.
    if (error.status === 401 || error.status === 403) {
      return new JunctionError('upstream_error', `${provider} refused the gateway's credentials for this model; an operator must fix the provider key.`, { status: 502 });
    }
    // A 429 that outlasted our retries stays a 429 with Retry-After: the caller's SDK
    // then backs off and retries, which it would not do for a 502.
    if (error.status === 429) {
      const seconds = Math.max(1, Math.ceil(error.retryAfterSeconds ?? DEFAULT_UPSTREAM_RETRY_AFTER_SECONDS));
      return new JunctionError('upstream_rate_limited', `${provider} is rate limiting requests for this model; retry after ${seconds} s. (${error.upstreamMessage})`, {
        headers: { 'retry-after': String(seconds) },
      });
    }
    // Other 4xx from upstream are the caller's request being refused (bad parameter,
    // content policy): keep the status. 5xx after retries are our 502.
    const status = error.status >= 400 && error.status < 500 ? error.status : 502;
    return new JunctionError(status === 502 ? 'upstream_error' : 'invalid_request', `${provider} returned ${error.status}: ${error.upstreamMessage}`, { status });
  }
  return new JunctionError('internal_error', 'The upstream call failed unexpectedly.', { cause: error });
}
