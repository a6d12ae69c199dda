/**
 * One candidate model tried over its deployments, in the router's order. A retryable
 * failure (connect error, timeout, 5xx, refused credentials) counts against that deployment's
 * breaker and moves on to the next deployment; a 429 parks the deployment for its
 * Retry-After and moves on; a deployment whose rpm/tpm window is full is passed over before
 * sending; any other 4xx is the request's fault and ends the call. Only a
 * model left with a single deployment retries it with backoff, as a model without
 * deployments does.
 */
import type { CatalogModel, ModelDeployment } from '../catalog/types.ts';
import type { CancelSignal } from '../core/cancel-signal.ts';
import { JunctionError } from '../core/errors.ts';
import type { ProviderAdapter } from '../providers/adapter.ts';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import { UpstreamError } from '../providers/upstream-error.ts';
import type { DeploymentRouter, RoutePlan } from '../routing/deployment-router.ts';
import type { ProviderPreferences } from '../routing/provider-preferences.ts';
import { sleep } from './cancellable-sleep.ts';

type RetryPolicy = { retries: number; baseDelayMs: number; maxRetryAfterMs: number };

export type DeploymentAttempt<T> = {
  model: CatalogModel;
  deployments: readonly ModelDeployment[];
  providers: ProviderRegistry;
  policy: RetryPolicy;
  signal: CancelSignal;
  attempt: (adapter: ProviderAdapter, model: CatalogModel) => Promise<T>;
  router: DeploymentRouter;
  preferences: ProviderPreferences | undefined;
  attemptsBefore: number;
  defaultRetryAfterSeconds: number;
  /** A stream: the deployment stays in flight until the result's `release`. */
  holdInFlight: boolean;
  /** The call's input estimate plus its output cap, counted against the deployments' `tpm`. */
  tokens: number;
};

/** `reckon` replaces the call's token estimate in its deployment's window with the tokens it used. */
export type DeploymentOutcome<T> = {
  result?: { value: T; model: CatalogModel; attempts: number; release?: () => void; reckon?: (tokens: number) => void };
  error?: unknown;
  attempts: number;
};

/** How a failed attempt counts: a verdict on the deployment, and whether the call may go on elsewhere. */
type Verdict = 'failure' | 'rate_limited' | 'request_fault' | 'other';

const verdictOf = (error: unknown): Verdict => {
  if (!(error instanceof UpstreamError)) return 'other';
  if (error.status === 429) return 'rate_limited';
  if (error.retryable || error.status === 401 || error.status === 403) return 'failure';
  return 'request_fault';
};

export async function tryDeployments<T>(input: DeploymentAttempt<T>): Promise<DeploymentOutcome<T>> {
  const { model, providers, policy, signal, attempt, router, preferences } = input;
  let attempts = input.attemptsBefore;
  const { tokens } = input;
  const plan = router.plan(model, input.deployments, preferences, tokens);
  const tries = plan.tries.filter((deployment) => providers.has(deployment.adapterKey));
  if (tries.length === 0) return { error: nothingToTry(model, plan, preferences !== undefined, tokens), attempts };
  let lastError: unknown;
  for (const deployment of tries) {
    const adapter = providers.get(deployment.adapterKey) as ProviderAdapter;
    const health = router.healthOf(model, deployment);
    const window = router.windowOf(model, deployment);
    const retries = tries.length === 1 ? policy.retries : 0;
    for (let retry = 0; retry <= retries; retry += 1) {
      // The place is taken here, not in the plan: calls running alongside, here or in other processes, may have filled the window since.
      const reserved = window?.reserve(router.now(), tokens);
      const place = reserved instanceof Promise ? await reserved : reserved;
      if (place?.placed === false) {
        lastError ??= limitsReached(model, place.waitMs);
        break;
      }
      attempts += 1;
      const startedAt = router.now();
      health.begin();
      try {
        const value = await attempt(adapter, deployment.served);
        health.succeed(router.now() - startedAt, input.holdInFlight);
        const reckon = place?.reckon;
        return { result: { value, model: deployment.served, attempts, ...(input.holdInFlight && { release: once(() => health.release()) }), ...(reckon && { reckon }) }, attempts };
      } catch (error) {
        if (signal.aborted) {
          health.abandon();
          throw error;
        }
        lastError = error;
        const verdict = verdictOf(error);
        if (verdict === 'request_fault') {
          health.succeed(undefined);
          throw error;
        }
        if (verdict === 'other') {
          health.abandon();
          break;
        }
        if (verdict === 'rate_limited') {
          const seconds = (error as UpstreamError).retryAfterSeconds ?? input.defaultRetryAfterSeconds;
          health.park(router.now(), seconds * 1000);
          break;
        }
        health.fail(router.now());
        if (retry === retries || !health.available(router.now())) break;
        await sleep(policy.baseDelayMs * 2 ** retry * (0.75 + Math.random() * 0.5), signal);
      }
    }
  }
  return { error: lastError, attempts };
}

const once = (action: () => void): (() => void) => {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
};

/** A model without deployments under a request's `provider` preferences is its provider's one deployment: refused when they leave it out. */
export function excludedByPreferences(model: CatalogModel, preferences: ProviderPreferences): JunctionError | undefined {
  const named = (list: readonly string[] | undefined) => list?.includes(model.providerId) ?? false;
  if ((preferences.only && !named(preferences.only)) || named(preferences.ignore)) return excluded(model);
  return undefined;
}

const excluded = (model: CatalogModel) => new JunctionError('invalid_request', `The request's provider preferences leave no provider of ${model.id}.`, { param: 'provider' });

const retryAfter = (waitMs: number): string => String(Math.max(1, Math.ceil(waitMs / 1000)));

const limitsReached = (model: CatalogModel, waitMs: number): JunctionError =>
  new JunctionError('deployment_limits_reached', `Every deployment of ${model.id} has used its requests or tokens per minute; retry after ${retryAfter(waitMs)} s.`, {
    headers: { 'retry-after': retryAfter(waitMs) },
  });

function nothingToTry(model: CatalogModel, plan: RoutePlan, steered: boolean, tokens: number): JunctionError {
  if (plan.waitMs !== undefined) {
    const seconds = retryAfter(plan.waitMs);
    // A full window is the gateway's own count: it says when a place frees, whatever else waits.
    if (plan.full && !plan.parked) return limitsReached(model, plan.waitMs);
    if (plan.parked) return new JunctionError('upstream_rate_limited', `Every deployment of ${model.id} is rate limited; retry after ${seconds} s.`, { headers: { 'retry-after': seconds } });
    return new JunctionError('deployments_unavailable', `Every deployment of ${model.id} is cooling down after failures; retry after ${seconds} s.`, { headers: { 'retry-after': seconds } });
  }
  if (plan.tooLarge > 0 && plan.tries.length === 0) {
    return new JunctionError('invalid_request', `The call may use ${tokens} tokens (its input and output cap), more than the tokens per minute of every deployment of ${model.id}; lower max_tokens.`, {
      param: 'max_tokens',
    });
  }
  if (steered && plan.tries.length === 0) return excluded(model);
  return new JunctionError('provider_not_configured', `No deployment of ${model.id} has its provider configured.`);
}
