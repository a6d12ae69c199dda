/**
 * The one rule for how long an upstream attempt may take. The wait for the answer is the
 * deployment's `timeout_ms`, else the model's, else the provider's (its `timeout_ms`, else
 * JUNCTION_UPSTREAM_TIMEOUT_MS, else 60 s); a request's `x-junction-timeout-ms` only
 * shortens it, so tenant input never holds a connection longer than the operator allows.
 * The idle limit of a started stream is the deployment's `stream_idle_timeout_ms`, else the
 * model's.
 */
import { MAX_TIMEOUT_MS } from '../catalog/deployment-schema.ts';
import type { CatalogModel } from '../catalog/types.ts';
import type { ProviderConfig } from '../providers/adapter.ts';
import type { AttemptLimits } from '../providers/http/attempt-signal.ts';
import { providerTimeoutMs } from '../providers/http/upstream-client.ts';

/**
 * The limits of one attempt on `model` (a deployment's `served` model, or the model itself)
 * through `provider`. Undefined when neither the config's model or deployment nor the
 * request set one: the provider's wait for headers, which the HTTP client applies by
 * itself, is then the whole rule, and the call makes no timer of its own.
 */
export function attemptLimits(model: CatalogModel, provider: ProviderConfig, requestMs: number | undefined): AttemptLimits | undefined {
  const timeouts = model.timeouts;
  if (timeouts === undefined && requestMs === undefined) return undefined;
  const configuredMs = timeouts?.deployment?.firstByteMs ?? timeouts?.model?.firstByteMs;
  const streamIdleMs = timeouts?.deployment?.streamIdleMs ?? timeouts?.model?.streamIdleMs;
  if (configuredMs === undefined && streamIdleMs === undefined && requestMs === undefined) return undefined;
  const boundMs = configuredMs ?? providerTimeoutMs(provider);
  const firstByteMs = requestMs === undefined ? boundMs : Math.min(requestMs, boundMs);
  // A provider's `timeout_ms` has no upper bound of its own.
  return { firstByteMs: Math.min(firstByteMs, MAX_TIMEOUT_MS), streamIdleMs };
}
