import type { BudgetLeases, Reservation } from '../../billing/budget-leases.ts';
import { worstCaseChatCost } from '../../catalog/costs.ts';
import { resolveModel } from '../../catalog/lookup.ts';
import type { CatalogModel } from '../../catalog/types.ts';
import { JunctionError } from '../../core/errors.ts';
import { admit, type AdmissionDeps, isBudgetRefusal } from '../../pipeline/admission.ts';
import type { CallContext } from '../../pipeline/call-context.ts';
import type { RateLimitState } from '../../pipeline/rate-limiter.ts';
import { dearestModel, isModelRestricted, openaiChatModels, unnamedModelBudgetRefusal, unnamedModelRefusal } from './upstream-decided-model.ts';

/** The provider every pass-through call goes to. */
export const PASSTHROUGH_PROVIDER = 'openai';

/**
 * The least a pass-through call reserves: 1 µUSD, so that an account without credit
 * (or a key at its spend limit) is refused with 402/403 even for free calls (files,
 * vector stores), while nothing is charged for them.
 */
export const MIN_PASSTHROUGH_RESERVATION_MICROS = 1;

/** POSTs whose answer reports the tokens of the model work they started (and only once); a compaction is a model pass too. */
const BILLABLE = [/^\/responses$/, /^\/responses\/compact$/, /^\/threads\/runs$/, /^\/threads\/[^/]+\/runs$/, /^\/threads\/[^/]+\/runs\/[^/]+\/submit_tool_outputs$/];

export const isBillable = (method: string, path: string): boolean => method === 'POST' && BILLABLE.some((pattern) => pattern.test(path));

/**
 * Reads whose answer may report usage not billed yet: a background Response or a Run
 * polled until it completes. Billed once per Response/Run id (see TappedUsage).
 */
const USAGE_READS = [/^\/responses\/[^/]+$/, /^\/threads\/[^/]+\/runs\/[^/]+$/];
export const reportsUsage = (method: string, path: string): boolean => isBillable(method, path) || (method === 'GET' && USAGE_READS.some((pattern) => pattern.test(path)));

/**
 * Work the provider bills later, outside any answer: a batch (billed as it runs) and
 * stored vector data (billed per GB-day). Logged with status `deferred_billing` and no
 * cost; docs/gateway.md says so.
 */
const DEFERRED = [/^\/batches$/, /^\/vector_stores$/, /^\/vector_stores\/[^/]+\/(files|file_batches)$/];
export const isDeferredBilling = (method: string, path: string): boolean => method === 'POST' && DEFERRED.some((pattern) => pattern.test(path));

export type PassthroughGate = {
  /** The catalog model the body named, when it named one. */
  model: CatalogModel | undefined;
  requestedModel: string | null;
  /** The model name to send upstream when the caller used a catalog id or alias. */
  rewriteModelTo: string | undefined;
  rateLimit: RateLimitState | undefined;
  reservation: Reservation;
};

/**
 * The account's gates for one pass-through call: requests per minute, then — when a
 * JSON body names a model — catalog, plan and allowlist for it (as `openai/<name>`, or
 * a catalog id / alias of an OpenAI model), then the reservation:
 *
 * - a billable POST (/responses, a run) naming a model reserves that model's worst
 *   case: the body's bytes bound its own input tokens; a call that continues earlier
 *   state (previous_response_id, conversation, a thread) may add up to the model's
 *   whole context window; the output is max_output_tokens / max_completion_tokens, else
 *   the model's maximum;
 * - a billable POST naming no model (a stored prompt's, an assistant's or a continued
 *   run's model applies upstream) is refused for a key limited to some models, and
 *   otherwise reserves the worst case of the dearest OpenAI model in the catalog;
 * - anything else reserves MIN_PASSTHROUGH_RESERVATION_MICROS.
 *
 * A key with an allowlist may not create batches: the models are inside an uploaded
 * file the gateway does not read, so the allowlist could not be enforced.
 */
export async function admitPassthrough(
  deps: AdmissionDeps & { budgets: BudgetLeases },
  context: CallContext,
  call: { method: string; path: string; json: Record<string, unknown> | undefined; bodyBytes: number },
): Promise<PassthroughGate> {
  const field = call.json?.['model'];
  if (field != null && typeof field !== 'string') throw new JunctionError('invalid_request', '`model` must be a string.', { param: 'model' });
  const named = typeof field === 'string' ? field : undefined;
  let model: CatalogModel | undefined;
  let ceiling: CatalogModel | undefined;
  let rateLimit: RateLimitState | undefined;
  if (named !== undefined) {
    const requested = resolveModel(deps.catalog, named) ? named : `${PASSTHROUGH_PROVIDER}/${named}`;
    const admitted = await admit(deps, context, { model: requested, capability: 'chat' });
    model = admitted.candidates[0];
    rateLimit = admitted.rateLimit;
    if (model && model.providerId !== PASSTHROUGH_PROVIDER) {
      throw new JunctionError('invalid_request', `'${model.id}' is not an OpenAI model; ${call.path} is passed through to OpenAI only.`, { param: 'model' });
    }
  } else {
    rateLimit = await deps.rateLimiter.consume(context.key.id, context.key.rateLimitRpm);
    if (isBillable(call.method, call.path)) {
      if (isModelRestricted(deps.catalog, context.key, await deps.plans.planOf(context.key.accountId))) throw unnamedModelRefusal(call.path);
      ceiling = dearestModel(openaiChatModels(deps.catalog), (candidate) => worstCase(candidate, call))?.model;
    }
  }
  const tier = call.json?.['service_tier'];
  if (call.method === 'POST' && tier != null && tier !== 'auto' && tier !== 'default' && tier !== 'flex') {
    // Priority and scale processing cost more upstream than the catalog prices usage at.
    throw new JunctionError('invalid_request', "Only service_tier 'auto', 'default' or 'flex' is supported by this gateway.", { param: 'service_tier' });
  }
  if (call.method === 'POST' && /^\/batches$/.test(call.path) && context.key.allowedModels) {
    throw new JunctionError('model_not_allowed', 'This key is limited to some models, and a batch names its models inside a file the gateway cannot check. Use a key without a model allowlist.');
  }
  const reserveFor = model ?? ceiling;
  const amount = reserveFor && isBillable(call.method, call.path) ? worstCase(reserveFor, call) : MIN_PASSTHROUGH_RESERVATION_MICROS;
  const reservation = await deps.budgets.reserve(context.key, Math.max(MIN_PASSTHROUGH_RESERVATION_MICROS, amount)).catch((error: unknown) => {
    throw ceiling && isBudgetRefusal(error) ? unnamedModelBudgetRefusal(error, ceiling) : error;
  });
  const rewriteModelTo = model && named !== model.upstreamName ? model.upstreamName : undefined;
  return { model, requestedModel: named ?? null, rewriteModelTo, rateLimit, reservation };
}

function worstCase(model: CatalogModel, call: { path: string; json: Record<string, unknown> | undefined; bodyBytes: number }): number {
  const json = call.json ?? {};
  const continues = call.path.startsWith('/threads') || json['previous_response_id'] != null || json['conversation'] != null;
  const inputTokens = call.bodyBytes + (continues ? (model.contextLength ?? 0) : 0);
  const cap = json['max_output_tokens'] ?? json['max_completion_tokens'];
  return worstCaseChatCost(model, { inputTokens, maxOutputTokens: typeof cap === 'number' ? cap : undefined });
}
