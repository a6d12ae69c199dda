/**
 * Hot-path reads of a built catalog: one Map get per lookup, one Set get per plan
 * check. Nothing here allocates unless a dated snapshot id is asked for.
 */
import { DEFAULT_PLAN } from './build-catalog.ts';
import type { Catalog, CatalogModel } from './types.ts';

/** `-2024-08-06` (OpenAI) or `-20250929` (Anthropic) at the end of a model name. */
const SNAPSHOT_SUFFIX = /-(?:\d{4}-\d{2}-\d{2}|\d{8})$/;

/**
 * A model by id (`openai/gpt-4o-mini`) or alias (`fast`). A dated snapshot of a
 * listed model (`anthropic/claude-sonnet-4-5-20250929`) resolves to that model's
 * facts and prices with the dated name sent upstream, so clients can pin snapshots
 * without the catalog listing every date; its `canonicalId` is the listed model's.
 * Only snapshots the price data says share the model's price qualify.
 */
export const resolveModel = (catalog: Catalog, idOrAlias: string): CatalogModel | undefined => {
  const direct = catalog.lookup.get(idOrAlias);
  if (direct) return direct;
  const suffix = SNAPSHOT_SUFFIX.exec(idOrAlias);
  if (!suffix) return undefined;
  const base = catalog.lookup.get(idOrAlias.slice(0, suffix.index));
  // Only provider-qualified ids: an alias plus a date is not a snapshot of anything.
  if (!base?.acceptsSnapshot || !idOrAlias.startsWith(`${base.providerId}/`)) return undefined;
  const upstreamName = idOrAlias.slice(base.providerId.length + 1);
  return base.acceptsSnapshot(upstreamName) ? { ...base, id: idOrAlias, upstreamName } : undefined;
};

/** Whether `planName` allows the model; unknown plans and unknown models are refused. */
export const isModelInPlan = (catalog: Catalog, planName: string, idOrAlias: string): boolean => {
  const plan = catalog.plans.get(planName);
  if (!plan) return false;
  const model = resolveModel(catalog, idOrAlias);
  return model !== undefined && plan.has(model.canonicalId);
};

/** The listed models a plan allows, in catalog order (for `/v1/models`). */
export const modelsForPlan = (catalog: Catalog, planName: string = DEFAULT_PLAN): CatalogModel[] => {
  const plan = catalog.plans.get(planName);
  if (!plan) return [];
  return catalog.models.filter((model) => plan.has(model.id));
};
