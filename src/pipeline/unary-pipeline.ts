import type { BudgetLeases } from '../billing/budget-leases.ts';
import type { CatalogModel, Capability } from '../catalog/types.ts';
import { JunctionError } from '../core/errors.ts';
import type { Usage } from '../core/model-types.ts';
import type { ProviderAdapter } from '../providers/adapter.ts';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import { admit, admitNow, type AdmissionDeps } from './admission.ts';
import type { CallContext } from './call-context.ts';
import { newGenerationId } from './generation-id.ts';
import type { RateLimitState } from './rate-limiter.ts';
import type { DeploymentRouter } from '../routing/deployment-router.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, toClientError, withRetriesAndFallbacks } from './upstream-attempts.ts';
import { usageLogEntry } from './usage-log-entry.ts';
import type { CancelSignal } from '../core/cancel-signal.ts';
import { answerInTime } from './timed-attempt.ts';

export type Metered = { costMicros: number; usage?: Usage; units?: Record<string, number> };

export type UnaryCall<T> = {
  model: string;
  capability: Capability;
  /** The most this call can cost on `model`, reserved before the provider is called. */
  worstCase(model: CatalogModel): number;
  /** The provider call; absent methods on an adapter mean the provider cannot do it. */
  call(adapter: ProviderAdapter, model: CatalogModel, signal: CancelSignal): Promise<T>;
  /** The actual cost and units of a finished call. */
  meter(result: T, model: CatalogModel): Metered;
};

export type UnaryResult<T> = { value: T; model: CatalogModel; costMicros: number; generationId: string; rateLimit: RateLimitState | undefined; usage?: Usage };

export type UnaryPipelineDeps = AdmissionDeps & { providers: ProviderRegistry; budgets: BudgetLeases; retry?: RetryPolicy; router?: DeploymentRouter };

/**
 * Embeddings, images, moderation and audio: one request, one answer. Same gates,
 * reservation and settlement as chat (see ChatPipeline), without streaming.
 */
export class UnaryPipeline {
  readonly #deps: UnaryPipelineDeps;

  constructor(deps: UnaryPipelineDeps) {
    this.#deps = deps;
  }

  async run<T>(context: CallContext, spec: UnaryCall<T>): Promise<UnaryResult<T>> {
    const startedAt = performance.now();
    const createdAt = new Date();
    const generationId = newGenerationId();
    let candidates: CatalogModel[];
    let rateLimit: RateLimitState | undefined;
    let reservation;
    try {
      // As in the chat pipeline: answered at once unless a step must wait.
      const gate = { model: spec.model, capability: spec.capability };
      ({ candidates, rateLimit } = admitNow(this.#deps, context, gate) ?? (await admit(this.#deps, context, gate)));
      const worstCase = Math.max(...candidates.map((model) => spec.worstCase(model)));
      reservation = this.#deps.budgets.reserveFromLeases(context.key, worstCase) ?? (await this.#deps.budgets.reserve(context.key, worstCase));
    } catch (error) {
      if (error instanceof JunctionError) {
        this.#deps.budgets.settle(
          undefined,
          0,
          usageLogEntry({
            id: generationId,
            context,
            requestedModel: spec.model,
            model: undefined,
            status: 'rejected',
            httpStatus: error.status,
            errorCode: error.code,
            costMicros: 0,
            startedAt,
            createdAt,
          }),
          context.key,
        );
      }
      throw error;
    }
    let result;
    try {
      result = await withRetriesAndFallbacks(
        candidates,
        this.#deps.providers,
        this.#deps.retry ?? DEFAULT_RETRY_POLICY,
        context.signal,
        (adapter, model) => answerInTime(context, adapter, model, (signal) => spec.call(adapter, model, signal)),
        this.#deps.router,
      );
    } catch (error) {
      const aborted = context.signal.aborted;
      const clientError = aborted ? new JunctionError('client_closed_request', 'The client closed the connection.') : toClientError(error, candidates[0]);
      this.#deps.budgets.settle(
        reservation,
        0,
        usageLogEntry({
          id: generationId,
          context,
          requestedModel: spec.model,
          model: candidates[0],
          status: aborted ? 'client_closed' : 'upstream_error',
          httpStatus: clientError.status,
          errorCode: clientError.code,
          costMicros: 0,
          startedAt,
          createdAt,
        }),
        context.key,
      );
      throw clientError;
    }
    const metered = spec.meter(result.value, result.model);
    this.#deps.budgets.settle(
      reservation,
      metered.costMicros,
      usageLogEntry({
        id: generationId,
        context,
        requestedModel: spec.model,
        model: result.model,
        status: 'success',
        httpStatus: 200,
        ...(metered.usage && { usage: metered.usage }),
        units: metered.units ?? null,
        costMicros: metered.costMicros,
        startedAt,
        createdAt,
        attempts: result.attempts,
      }),
      context.key,
    );
    return { value: result.value, model: result.model, costMicros: metered.costMicros, generationId, rateLimit, ...(metered.usage && { usage: metered.usage }) };
  }
}

type MediaMethod = 'embed' | 'generateImages' | 'moderate' | 'speech' | 'transcribe';

/** The adapter's method for a media call, bound; a provider without it is a configuration error, not the caller's. */
export function requireMethod<M extends MediaMethod>(adapter: ProviderAdapter, method: M, model: CatalogModel): NonNullable<ProviderAdapter[M]> {
  const found = adapter[method];
  if (!found) throw new JunctionError('provider_not_configured', `The provider of '${model.id}' does not offer ${method}.`);
  return found.bind(adapter) as NonNullable<ProviderAdapter[M]>;
}
