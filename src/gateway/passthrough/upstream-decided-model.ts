import { computeChatCost } from '../../catalog/costs.ts';
import { isModelInPlan, resolveModel } from '../../catalog/lookup.ts';
import type { Catalog, CatalogModel } from '../../catalog/types.ts';
import { JunctionError } from '../../core/errors.ts';
import type { Usage } from '../../core/model-types.ts';
import type { ApiKeyRecord } from '../../keys/key-record.ts';

/**
 * Pass-through calls whose model is decided upstream (a stored prompt, an assistant, a
 * run being continued, a stored Response read back): the gateway cannot check that
 * model before the call, so it gates by what the key could reach at most and prices
 * by what the provider reports afterwards.
 */

const PROVIDER = 'openai';

/** The catalog's OpenAI chat models: what a call without a model could reach. */
export const openaiChatModels = (catalog: Catalog): CatalogModel[] => catalog.models.filter((model) => model.providerId === PROVIDER && model.capabilities.has('chat'));

/**
 * Whether a key may reach fewer than all of the catalog's OpenAI chat models (its
 * allowlist, or the account's plan): such a key must name its model, since a model
 * decided upstream could be one it may not use.
 */
export function isModelRestricted(catalog: Catalog, key: ApiKeyRecord, plan: string): boolean {
  return key.allowedModels !== null || openaiChatModels(catalog).some((model) => !isModelInPlan(catalog, plan, model.id));
}

export const unnamedModelRefusal = (path: string): JunctionError =>
  new JunctionError(
    'model_not_allowed',
    `This key is limited to some models (its allowlist or the account's plan), and this call names no model: ${path} would use one decided upstream (a stored prompt, an assistant or the run it continues), which the gateway cannot check first. Name the model in \`model\`, or use a key without limits.`,
    { param: 'model' },
  );

/** A budget refusal of a call without a model, saying why it needed so much. */
export const unnamedModelBudgetRefusal = (refusal: JunctionError, ceiling: CatalogModel): JunctionError =>
  new JunctionError(
    refusal.code,
    `${refusal.message} This call names no model, so it reserves what the dearest OpenAI model (${ceiling.id}) could cost: name the model in \`model\`, or set max_output_tokens, to reserve less.`,
    { cause: refusal },
  );

/** The model whose `cost` is highest, or undefined when there is none. */
export function dearestModel(models: readonly CatalogModel[], cost: (model: CatalogModel) => number): { model: CatalogModel; cost: number } | undefined {
  let dearest: { model: CatalogModel; cost: number } | undefined;
  for (const model of models) {
    const amount = cost(model);
    if (!dearest || amount > dearest.cost) dearest = { model, cost: amount };
  }
  return dearest;
}

export type ReportedPrice = { model: CatalogModel; costMicros: number; errorCode: string | null };

/**
 * The price of tokens the provider reported for a model the request did not name. A
 * model in the catalog is priced as listed. One the catalog does not list (or no model
 * at all) is priced at the dearest rate of the catalog's OpenAI models for those tokens:
 * the operator sells only what it listed, so an unlisted model must not run free, and
 * the dearest listed rate is the one price that never undercharges for anything sold.
 * Its row names what ran, with error code `model_not_in_catalog`.
 */
export function priceReportedUsage(catalog: Catalog, reportedModel: string | undefined, usage: Usage): ReportedPrice | undefined {
  const listed = reportedModel ? resolveModel(catalog, `${PROVIDER}/${reportedModel}`) : undefined;
  if (listed) return { model: listed, costMicros: computeChatCost(listed, usage), errorCode: null };
  const dearest = dearestModel(openaiChatModels(catalog), (model) => computeChatCost(model, usage));
  if (!dearest) return undefined;
  const ran = reportedModel ?? 'unknown';
  return {
    model: { ...dearest.model, id: `${PROVIDER}/${ran}`, canonicalId: `${PROVIDER}/${ran}`, upstreamName: ran },
    costMicros: dearest.cost,
    errorCode: 'model_not_in_catalog',
  };
}
