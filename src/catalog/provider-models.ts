/**
 * The models one configured provider contributes before config overrides:
 * published entries (filtered and completed by the built-in table) for openai,
 * anthropic, gemini, bedrock, cohere and mistral kinds, the config's own list for openai-compatible ones.
 */
import { BUILTIN_FACTS, type ModelFacts, type ProviderFacts } from './builtin-facts.ts';
import type { CompatibleProviderConfig, ModelOverride } from './config-schema.ts';
import { globMatcher } from './glob.ts';
import { PUBLISHED_PROVIDER_BY_KIND, findPublishedModel, publishedModels, type PublishedProviderId } from './published-prices.ts';
import type { CatalogModel, CatalogProvider, ModelPrices, ModelSource } from './types.ts';

type ModelBase = {
  provider: CatalogProvider;
  name: string;
  upstreamName: string;
  displayName: string | undefined;
  facts: ModelFacts;
  contextLength: number | undefined;
  created: number;
  source: ModelSource;
  acceptsSnapshot?: (upstreamName: string) => boolean;
};

export const makeModel = (base: ModelBase): CatalogModel => {
  const id = `${base.provider.id}/${base.name}`;
  return {
    id,
    canonicalId: id,
    providerId: base.provider.id,
    providerKind: base.provider.kind,
    upstreamName: base.upstreamName,
    displayName: base.displayName,
    capabilities: new Set(base.facts.capabilities),
    contextLength: base.contextLength ?? base.facts.contextLength,
    maxOutputTokens: base.facts.maxOutputTokens,
    prices: base.facts.prices ?? {},
    mediaParamsSchema: base.facts.mediaParamsSchema,
    created: base.created,
    source: base.source,
    acceptsSnapshot: base.acceptsSnapshot,
  };
};

/**
 * Prices merge field by field (and image variants key by key), so `prices: {input: …}`
 * in config keeps the published output price and one overridden variant keeps the rest.
 */
export const mergePrices = (base: ModelPrices, override: ModelPrices): ModelPrices => {
  const merged: ModelPrices = { ...base, ...override };
  if (base.imageVariants && override.imageVariants) merged.imageVariants = { ...base.imageVariants, ...override.imageVariants };
  return merged;
};

/** Config fields win over published and built-in facts. */
export const applyOverride = (model: CatalogModel, override: Omit<ModelOverride, 'disabled'>): CatalogModel => ({
  ...model,
  displayName: override.displayName ?? model.displayName,
  upstreamName: override.upstreamName ?? model.upstreamName,
  capabilities: override.capabilities ? new Set(override.capabilities) : model.capabilities,
  contextLength: override.contextLength ?? model.contextLength,
  maxOutputTokens: override.maxOutputTokens ?? model.maxOutputTokens,
  prices: override.prices ? mergePrices(model.prices, override.prices) : model.prices,
  mediaParamsSchema: override.mediaParamsSchema ?? model.mediaParamsSchema,
  created: override.created ?? model.created,
});

/** An openai-compatible model (or a config-added one): chat only and free unless config says otherwise. */
export const configModel = (provider: CatalogProvider, name: string, override: Omit<ModelOverride, 'disabled'>, created: number): CatalogModel =>
  applyOverride(
    makeModel({
      provider,
      name,
      upstreamName: name,
      displayName: undefined,
      facts: { capabilities: ['chat'], prices: { inputPerMillion: 0, outputPerMillion: 0 } },
      contextLength: undefined,
      created,
      source: 'config',
    }),
    override,
  );

type CompiledFacts = {
  keep: (name: string) => boolean;
  factsFor: (name: string) => ModelFacts;
  source: ProviderFacts;
};

const compiled = new Map<PublishedProviderId, CompiledFacts>();

const compileFacts = (publishedId: PublishedProviderId): CompiledFacts => {
  const cached = compiled.get(publishedId);
  if (cached) return cached;
  const source = BUILTIN_FACTS[publishedId];
  const include = globMatcher(source.include);
  const exclude = globMatcher(source.exclude.flatMap((entry) => entry.match));
  const rules = source.rules.map((rule) => ({ matches: globMatcher(rule.match), facts: rule.facts }));
  const result: CompiledFacts = {
    keep: (name) => include(name) && !exclude(name),
    // The tables end with a catch-all rule; the fallback only guards an edited table.
    factsFor: (name) => rules.find((rule) => rule.matches(name))?.facts ?? { capabilities: ['chat'] },
    source,
  };
  compiled.set(publishedId, result);
  return result;
};

export const publishedProviderModels = (provider: CatalogProvider, now: Date, created: number): CatalogModel[] => {
  if (provider.kind === 'openai-compatible') return [];
  const publishedId = PUBLISHED_PROVIDER_BY_KIND[provider.kind];
  const facts = compileFacts(publishedId);
  const models: CatalogModel[] = [];
  const seen = new Set<string>();
  for (const published of publishedModels(publishedId, now)) {
    const name = facts.source.catalogName?.(published.name) ?? published.name;
    if (published.deprecated || !facts.keep(published.name) || seen.has(name)) continue;
    seen.add(name);
    const ruleFacts = facts.factsFor(published.name);
    models.push(
      makeModel({
        provider,
        name,
        upstreamName: facts.source.upstreamNames[published.name] ?? name,
        displayName: published.displayName,
        facts: { ...ruleFacts, prices: mergePrices(published.prices, ruleFacts.prices ?? {}) },
        contextLength: published.contextLength,
        created,
        source: 'genai-prices',
        acceptsSnapshot: published.matches,
      }),
    );
  }
  for (const extra of facts.source.extras) {
    if (seen.has(extra.name)) continue;
    const borrowed = extra.pricesFromPublished ? findPublishedModel(publishedId, extra.name, now)?.prices : undefined;
    models.push(
      makeModel({
        provider,
        name: extra.name,
        upstreamName: extra.name,
        displayName: undefined,
        facts: { ...extra.facts, prices: mergePrices(borrowed ?? {}, extra.facts.prices ?? {}) },
        contextLength: undefined,
        created,
        source: 'builtin',
      }),
    );
  }
  return models;
};

export const compatibleProviderModels = (provider: CatalogProvider, config: CompatibleProviderConfig | undefined, created: number): CatalogModel[] =>
  (config?.models ?? []).map((entry) => configModel(provider, entry.name, entry.override, created));
