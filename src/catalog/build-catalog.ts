/**
 * Builds the immutable in-memory catalog once at start-up (and on config reload).
 * Everything the hot path needs is precomputed here — the id+alias lookup map and
 * each plan's allowed-id set — so a request only does Map/Set gets.
 *
 * Which providers exist is the caller's decision: it passes only providers it has
 * credentials for, and config entries that name any other provider are skipped
 * with a warning rather than failing, so one config file serves every deployment.
 * References to a configured provider's models are checked, and mistakes fail the
 * build with the config path that caused them.
 */
import { CatalogConfigError, formatConfigPath, type ConfigIssue } from './config-error.ts';
import { emptyCatalogConfig, type CatalogConfig } from './config-schema.ts';
import { globMatcher, isGlob } from './glob.ts';
import { applyOverride, compatibleProviderModels, configModel, publishedProviderModels } from './provider-models.ts';
import type { Catalog, CatalogModel, CatalogProvider } from './types.ts';
import { withDeployments, deploymentProviderKind } from './model-deployments.ts';

export const DEFAULT_PLAN = 'default';

export type BuildCatalogOptions = {
  /** Providers with credentials; nothing else contributes models. */
  providers: readonly CatalogProvider[];
  config?: CatalogConfig;
  /** Names the config in error messages, e.g. its file path. */
  configSource?: string;
  /** Picks date-dependent published prices and stamps `created`; defaults to now. */
  now?: Date;
};

export const buildCatalog = (options: BuildCatalogOptions): Catalog => {
  const config = options.config ?? emptyCatalogConfig();
  const now = options.now ?? new Date();
  const created = Math.floor(now.getTime() / 1000);
  const issues: ConfigIssue[] = [];
  const warnings: string[] = [];

  const providers = new Map<string, CatalogProvider>();
  for (const provider of options.providers) {
    if (providers.has(provider.id)) throw new Error(`provider id configured twice: ${provider.id}`);
    providers.set(provider.id, provider);
  }

  const byId = new Map<string, CatalogModel>();
  const publishedByProvider = new Map<string, ReadonlyMap<string, CatalogModel>>();
  const publishedFallback = (provider: CatalogProvider): ReadonlyMap<string, CatalogModel> => {
    const key = `${provider.id}\n${provider.kind}`;
    let models = publishedByProvider.get(key);
    if (!models) publishedByProvider.set(key, (models = new Map(publishedProviderModels(provider, now, created).map((model) => [model.id, model]))));
    return models;
  };
  for (const provider of providers.values()) {
    const models = provider.kind === 'openai-compatible' ? compatibleProviderModels(provider, config.providers[provider.id], created) : publishedProviderModels(provider, now, created);
    for (const model of models) byId.set(model.id, model);
  }

  for (const [id, override] of Object.entries(config.models)) {
    // A model served only through deployments needs no provider of its id's own.
    const firstDeployment = override.deployments?.[0];
    const provider =
      providers.get(providerOf(id)) ??
      (firstDeployment && { id: providerOf(id), kind: deploymentProviderKind(firstDeployment.provider, firstDeployment.model ?? id.slice(providerOf(id).length + 1)) });
    if (!provider) {
      warnings.push(`models.${id}: provider ${providerOf(id)} is not configured; entry skipped`);
      continue;
    }
    // A deployment-only model of a published family (Claude or Gemini on Vertex) keeps its published facts and prices.
    const existing = byId.get(id) ?? (providers.has(provider.id) ? undefined : publishedFallback(provider).get(id));
    const { disabled, deployments, routing, timeouts, ...fields } = override;
    if (disabled) {
      if (existing) byId.delete(id);
      else warnings.push(`models.${id}: disabled but not in the catalog`);
      continue;
    }
    let model: CatalogModel | undefined;
    if (existing) {
      model = applyOverride(existing, fields);
    } else if (provider.kind !== 'openai-compatible' && !fields.prices) {
      // A new model on a paid provider without prices would be served for free.
      issues.push({ path: formatConfigPath(['models', id, 'prices']), message: `${id} is not in the published catalog; give its prices` });
    } else {
      model = configModel(provider, id.slice(provider.id.length + 1), fields, created);
    }
    if (model && timeouts) model = { ...model, timeouts: { model: timeouts } };
    if (model) byId.set(id, deployments ? withDeployments(model, deployments, routing, now) : model);
  }

  const aliases = new Map<string, string>();
  for (const [alias, target] of Object.entries(config.aliases)) {
    if (!providers.has(providerOf(target))) {
      warnings.push(`aliases.${alias}: provider ${providerOf(target)} is not configured; alias skipped`);
    } else if (!byId.has(target)) {
      issues.push({ path: formatConfigPath(['aliases', alias]), message: `unknown model ${target}` });
    } else {
      aliases.set(alias, target);
    }
  }

  const models = [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  for (const model of models) {
    // Missing prices bill as 0; say so, since only openai-compatible models default to free on purpose.
    if (model.capabilities.has('chat') && (model.prices.inputPerMillion === undefined || model.prices.outputPerMillion === undefined)) {
      warnings.push(`${model.id}: no published token prices; calls are billed as free`);
    }
  }
  const plans = buildPlans(config, models, aliases, providers, issues, warnings);

  if (issues.length > 0) throw new CatalogConfigError(options.configSource ?? 'catalog config', issues);

  const lookup = new Map<string, CatalogModel>(byId);
  for (const [alias, target] of aliases) {
    const model = byId.get(target);
    if (model) lookup.set(alias, model);
  }
  return { models, lookup, aliases, plans, providers: [...providers.values()], warnings };
};

/**
 * Each plan becomes the set of canonical ids its patterns allow. Globs match ids
 * (`openai/*`, `*mini*`); a plain entry may also be an alias. Without a `default`
 * plan in config, `default` allows the whole catalog.
 */
const buildPlans = (
  config: CatalogConfig,
  models: readonly CatalogModel[],
  aliases: ReadonlyMap<string, string>,
  providers: ReadonlyMap<string, CatalogProvider>,
  issues: ConfigIssue[],
  warnings: string[],
): Map<string, ReadonlySet<string>> => {
  const plans = new Map<string, ReadonlySet<string>>();
  const ids = new Set(models.map((model) => model.id));
  for (const [name, plan] of Object.entries(config.plans)) {
    const allowed = new Set<string>();
    plan.models.forEach((pattern, index) => {
      if (isGlob(pattern)) {
        const matches = globMatcher([pattern]);
        for (const id of ids) if (matches(id)) allowed.add(id);
        return;
      }
      const id = aliases.get(pattern) ?? pattern;
      if (ids.has(id)) allowed.add(id);
      else if (pattern.includes('/') && !providers.has(providerOf(pattern))) {
        warnings.push(`plans.${name}: provider ${providerOf(pattern)} is not configured; ${pattern} skipped`);
      } else if (pattern.includes('/') || !Object.hasOwn(config.aliases, pattern)) {
        issues.push({ path: formatConfigPath(['plans', name, 'models', index]), message: `unknown model or alias ${pattern}` });
      }
    });
    plans.set(name, allowed);
  }
  if (!plans.has(DEFAULT_PLAN)) plans.set(DEFAULT_PLAN, ids);
  return plans;
};

const providerOf = (id: string): string => id.slice(0, Math.max(0, id.indexOf('/')));
