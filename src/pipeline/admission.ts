import type { BudgetLeases, Reservation } from '../billing/budget-leases.ts';
import type { Catalog, CatalogModel, Capability } from '../catalog/types.ts';
import { isJunctionError, type JunctionError } from '../core/errors.ts';
import type { ApiKeyRecord } from '../keys/key-record.ts';
import type { AccountPlans } from './account-plans.ts';
import type { CallContext } from './call-context.ts';
import { resolveAllowedModel } from './model-access.ts';
import type { KeyRateLimiter, RateLimitState } from './rate-limiter.ts';

export type AdmissionDeps = {
  catalog: Catalog;
  budgets: BudgetLeases;
  rateLimiter: KeyRateLimiter;
  plans: AccountPlans;
};

export type Admitted = {
  candidates: CatalogModel[];
  rateLimit: RateLimitState | undefined;
};

/**
 * The gate every model call passes before anything reaches a provider: requests per
 * minute, then the model (and each fallback) against catalog, plan and allowlist.
 * The reservation of the worst-case cost follows (see `reserveOrCap`).
 */
export async function admit(deps: AdmissionDeps, context: CallContext, request: { model: string; fallbackModels?: readonly string[]; capability: Capability }): Promise<Admitted> {
  const key = context.key;
  const rateLimit = await deps.rateLimiter.consume(key.id, key.rateLimitRpm);
  return { candidates: candidatesFor(deps.catalog, key, await deps.plans.planOf(key.accountId), request), rateLimit };
}

/**
 * `admit` without waiting, when the key's rate limit can be answered in this process (see
 * `KeyRateLimiter.consumeNow`) and the account's
 * plan is cached (nearly every call on one process): an async step per call showed in
 * the gateway's profile. Undefined (nothing counted yet) when it cannot: call `admit`.
 * Refusals throw as `admit`'s do.
 */
export function admitNow(deps: AdmissionDeps, context: CallContext, request: { model: string; fallbackModels?: readonly string[]; capability: Capability }): Admitted | undefined {
  const key = context.key;
  const plan = deps.plans.cachedPlanOf(key.accountId);
  if (plan === undefined) return undefined;
  let rateLimit: RateLimitState | undefined;
  if (key.rateLimitRpm !== null) {
    rateLimit = deps.rateLimiter.consumeNow(key.id, key.rateLimitRpm);
    if (rateLimit === undefined) return undefined;
  }
  return { candidates: candidatesFor(deps.catalog, key, plan, request), rateLimit };
}

function candidatesFor(catalog: Catalog, key: ApiKeyRecord, plan: string, request: { model: string; fallbackModels?: readonly string[]; capability: Capability }): CatalogModel[] {
  const first = resolveAllowedModel(catalog, key, plan, request.model, request.capability);
  const fallbacks = request.fallbackModels ?? [];
  if (fallbacks.length === 0) return [first];
  const candidates = [first, ...fallbacks.map((id, index) => resolveAllowedModel(catalog, key, plan, id, request.capability, `models[${index}]`))];
  return candidates.filter((model, index) => candidates.findIndex((other) => other.id === model.id) === index);
}

/** Smallest output cap worth calling a model with when the budget cannot pay for more. */
export const MIN_CAPPED_OUTPUT_TOKENS = 16;

/**
 * Reserves the worst case. When the request set no output cap and the budget cannot
 * cover the model's maximum output, the output is capped at what the remaining budget
 * can pay for (and the cap is sent upstream), rather than refusing a call that would
 * most likely have fit; below MIN_CAPPED_OUTPUT_TOKENS it is refused.
 */
export async function reserveOrCap(
  budgets: BudgetLeases,
  context: CallContext,
  options: {
    explicitCap: number | undefined;
    worstCase: (maxOutputTokens: number | undefined) => number;
    /** Output tokens the given budget can pay for after the input. */
    affordableOutput: (budgetMicros: number) => number;
  },
): Promise<{ reservation: Reservation; cappedOutputTokens: number | undefined }> {
  try {
    return { reservation: await budgets.reserve(context.key, options.worstCase(options.explicitCap)), cappedOutputTokens: undefined };
  } catch (error) {
    if (options.explicitCap !== undefined || !isBudgetRefusal(error)) throw error;
    const affordable = options.affordableOutput(await budgets.headroom(context.key));
    if (affordable < MIN_CAPPED_OUTPUT_TOKENS) throw error;
    return { reservation: await budgets.reserve(context.key, options.worstCase(affordable)), cappedOutputTokens: affordable };
  }
}

/** `reserveOrCap` without waiting, when the leases held cover the worst case; else undefined (call `reserveOrCap`). */
export function reserveFromLeases(
  budgets: BudgetLeases,
  context: CallContext,
  options: { explicitCap: number | undefined; worstCase: (maxOutputTokens: number | undefined) => number },
): { reservation: Reservation; cappedOutputTokens: undefined } | undefined {
  const reservation = budgets.reserveFromLeases(context.key, options.worstCase(options.explicitCap));
  return reservation && { reservation, cappedOutputTokens: undefined };
}

/** Whether an error is a budget refusal (the only kind an output cap can cure). */
export const isBudgetRefusal = (error: unknown): error is JunctionError => isJunctionError(error) && (error.code === 'insufficient_credits' || error.code === 'key_limit_exceeded');
