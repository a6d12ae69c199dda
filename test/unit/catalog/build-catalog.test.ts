import { findProvider } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { buildCatalog, DEFAULT_PLAN } from '../../../src/catalog/build-catalog.ts';
import { CatalogConfigError } from '../../../src/catalog/config-error.ts';
import { loadCatalogConfig, parseCatalogConfig } from '../../../src/catalog/load-config.ts';
import { isModelInPlan, modelsForPlan, resolveModel } from '../../../src/catalog/lookup.ts';
import type { CatalogProvider } from '../../../src/catalog/types.ts';

const NOW = new Date('2026-01-15T00:00:00Z');
const FIXTURES = new URL('../../fixtures/catalog/', import.meta.url);
const fixture = (name: string): string => new URL(name, FIXTURES).pathname;

const BUILT_IN: CatalogProvider[] = [
  { id: 'openai', kind: 'openai' },
  { id: 'anthropic', kind: 'anthropic' },
  { id: 'google', kind: 'gemini' },
];
const ALL: CatalogProvider[] = [...BUILT_IN, { id: 'ollama', kind: 'openai-compatible' }];

const publishedUsdPerMillion = (providerId: string, modelId: string, key: string): number => {
  const info = findProvider({ providerId })?.models.find((entry) => entry.id === modelId);
  const prices = info && !Array.isArray(info.prices) ? info.prices : undefined;
  const value = prices?.[key];
  if (typeof value === 'number') return value;
  if (value && typeof value === 'object') return value.base;
  throw new Error(`no ${key} for ${modelId}`);
};

describe('published models', () => {
  const catalog = buildCatalog({ providers: BUILT_IN, now: NOW });

  it('takes prices from @pydantic/genai-prices as integer µUSD per million tokens', () => {
    const checks: Array<[string, string, string, 'inputPerMillion' | 'outputPerMillion' | 'cachedInputPerMillion' | 'cacheWritePerMillion', string]> = [
      ['openai/gpt-4o-mini', 'openai', 'gpt-4o-mini', 'inputPerMillion', 'input_mtok'],
      ['openai/gpt-4o-mini', 'openai', 'gpt-4o-mini', 'outputPerMillion', 'output_mtok'],
      ['openai/gpt-4o-mini', 'openai', 'gpt-4o-mini', 'cachedInputPerMillion', 'cache_read_mtok'],
      ['anthropic/claude-sonnet-4-5', 'anthropic', 'claude-sonnet-4-5', 'cacheWritePerMillion', 'cache_write_mtok'],
      ['anthropic/claude-haiku-4-5', 'anthropic', 'claude-haiku-4-5', 'outputPerMillion', 'output_mtok'],
      ['google/gemini-2.5-flash', 'google', 'gemini-2.5-flash', 'inputPerMillion', 'input_mtok'],
      ['google/gemini-2.5-flash', 'google', 'gemini-2.5-flash', 'cachedInputPerMillion', 'cache_read_mtok'],
    ];
    for (const [id, providerId, name, field, key] of checks) {
      const price = resolveModel(catalog, id)?.prices[field];
      expect(Number.isInteger(price), id).toBe(true);
      expect(price, `${id} ${field}`).toBe(Math.round(publishedUsdPerMillion(providerId, name, key) * 1_000_000));
    }
    expect(resolveModel(catalog, 'openai/gpt-4o-mini')?.prices.inputPerMillion).toBe(150_000);
    expect(resolveModel(catalog, 'anthropic/claude-sonnet-4-5')?.prices.inputTiers).toEqual([
      { aboveInputTokens: 200_000, inputPerMillion: 6_000_000, outputPerMillion: 22_500_000, cachedInputPerMillion: 600_000, cacheWritePerMillion: 7_500_000 },
    ]);
  });

  it('fills capabilities, limits and facts from the built-in table', () => {
    const mini = resolveModel(catalog, 'openai/gpt-4o-mini');
    expect(mini).toMatchObject({ providerId: 'openai', providerKind: 'openai', upstreamName: 'gpt-4o-mini', contextLength: 128_000, maxOutputTokens: 16_384 });
    expect([...(mini?.capabilities ?? [])]).toEqual(['chat', 'tools', 'vision', 'json_output']);
    expect(resolveModel(catalog, 'anthropic/claude-sonnet-4-5')?.capabilities.has('reasoning')).toBe(true);
    expect(resolveModel(catalog, 'google/gemini-2.5-flash')?.maxOutputTokens).toBe(65_536);
    expect(resolveModel(catalog, 'anthropic/claude-3-haiku')?.upstreamName).toBe('claude-3-haiku-20240307');
  });

  it('offers OpenAI media models and Gemini embeddings, each media model with a params schema', () => {
    const capability = (id: string) => [...(resolveModel(catalog, id)?.capabilities ?? [])];
    expect(capability('openai/text-embedding-3-small')).toEqual(['embeddings']);
    expect(capability('openai/dall-e-3')).toEqual(['image_generation']);
    expect(capability('openai/gpt-image-1')).toEqual(['image_generation']);
    expect(capability('openai/omni-moderation-latest')).toEqual(['moderation']);
    expect(capability('openai/tts-1')).toEqual(['audio_speech']);
    expect(capability('openai/whisper-1')).toEqual(['audio_transcription']);
    expect(capability('google/gemini-embedding-001')).toEqual(['embeddings']);

    for (const model of catalog.models) {
      const media = ['image_generation', 'audio_speech', 'audio_transcription'].some((name) => model.capabilities.has(name as 'chat'));
      expect(model.mediaParamsSchema !== undefined, model.id).toBe(media);
    }
    const dalle = resolveModel(catalog, 'openai/dall-e-3')?.mediaParamsSchema;
    expect(dalle).toMatchObject({
      type: 'object',
      properties: { size: { enum: ['1024x1024', '1792x1024', '1024x1792'] }, quality: { enum: ['standard', 'hd'] }, style: { enum: ['vivid', 'natural'] }, n: { maximum: 1 } },
    });
    expect(resolveModel(catalog, 'openai/tts-1')?.mediaParamsSchema).toMatchObject({ properties: { speed: { minimum: 0.25, maximum: 4 } }, required: ['voice'] });
    expect(resolveModel(catalog, 'openai/whisper-1')?.mediaParamsSchema).toMatchObject({ properties: { language: {}, prompt: {}, response_format: {}, temperature: {} } });
    expect(resolveModel(catalog, 'openai/gpt-image-1')?.mediaParamsSchema).toMatchObject({ properties: { background: {}, quality: {}, n: { maximum: 10 } } });
  });

  it('leaves out what cannot be called through the adapters', () => {
    for (const id of ['openai/moderation', 'openai/ft:gpt-4o', 'openai/gpt-4o-realtime-preview', 'openai/o3-pro', 'openai/davinci', 'google/claude-sonnet-4-5', 'google/gemini-2.5-flash-image']) {
      expect(resolveModel(catalog, id), id).toBeUndefined();
    }
    expect(catalog.models.some((model) => model.prices.inputPerMillion === undefined && model.capabilities.has('chat'))).toBe(false);
    expect(catalog.warnings).toEqual([]);
  });

  it('lists only the providers the caller configured', () => {
    const openaiOnly = buildCatalog({ providers: [{ id: 'openai', kind: 'openai' }], now: NOW });
    expect(resolveModel(openaiOnly, 'anthropic/claude-sonnet-4-5')).toBeUndefined();
    expect(new Set(openaiOnly.models.map((model) => model.providerId))).toEqual(new Set(['openai']));
    const none = buildCatalog({ providers: [], now: NOW });
    expect(none.models).toEqual([]);
  });

  it('resolves dated snapshots to the listed model, sending the dated name upstream', () => {
    const snapshot = resolveModel(catalog, 'anthropic/claude-sonnet-4-5-20250929');
    expect(snapshot).toMatchObject({ id: 'anthropic/claude-sonnet-4-5-20250929', canonicalId: 'anthropic/claude-sonnet-4-5', upstreamName: 'claude-sonnet-4-5-20250929' });
    expect(resolveModel(catalog, 'openai/gpt-4o-mini-2024-07-18')?.prices.inputPerMillion).toBe(150_000);
    // A listed dated model wins over the snapshot rule.
    expect(resolveModel(catalog, 'openai/gpt-4o-2024-05-13')?.canonicalId).toBe('openai/gpt-4o-2024-05-13');
    expect(resolveModel(catalog, 'openai/nonexistent-2024-07-18')).toBeUndefined();
    // Not a same-price snapshot per the price data: gpt-4o-2024-05-13 costs more than gpt-4o.
    const openaiOnly = buildCatalog({
      providers: [{ id: 'openai', kind: 'openai' }],
      config: parseCatalogConfig({ models: { 'openai/gpt-4o-2024-05-13': { disabled: true } } }),
      now: NOW,
    });
    expect(resolveModel(openaiOnly, 'openai/gpt-4o-2024-05-13')).toBeUndefined();
    expect(resolveModel(openaiOnly, 'openai/gpt-4o-2024-11-20')?.canonicalId).toBe('openai/gpt-4o');
  });
});

describe('config: aliases, plans, overrides, openai-compatible providers', () => {
  it('builds the fixture config', async () => {
    const config = await loadCatalogConfig(fixture('valid.yaml'));
    const catalog = buildCatalog({ providers: ALL, config, now: NOW });

    // openai-compatible models come only from config, free unless priced.
    const llama = resolveModel(catalog, 'ollama/llama3.2');
    expect(llama).toMatchObject({ providerKind: 'openai-compatible', upstreamName: 'llama3.2', displayName: 'Llama 3.2 (local)', contextLength: 131_072, source: 'config' });
    expect(llama?.prices).toEqual({ inputPerMillion: 0, outputPerMillion: 0 });
    expect([...(resolveModel(catalog, 'ollama/qwen2.5-coder:7b')?.capabilities ?? [])]).toEqual(['chat', 'tools']);
    expect(catalog.models.filter((model) => model.providerId === 'ollama')).toHaveLength(2);

    // Overrides merge into published facts.
    expect(resolveModel(catalog, 'openai/gpt-4o-mini')?.maxOutputTokens).toBe(8_192);
    expect(resolveModel(catalog, 'openai/gpt-4o-mini')?.prices.inputPerMillion).toBe(150_000);
    expect(resolveModel(catalog, 'openai/dall-e-3')?.prices.imageVariants?.['hd/1024x1024']).toBe(90_000);
    expect(resolveModel(catalog, 'openai/dall-e-3')?.prices.imageVariants?.['standard/1024x1024']).toBe(40_000);
    expect(resolveModel(catalog, 'openai/gpt-4o-2024-05-13')).toBeUndefined();
    expect(resolveModel(catalog, 'openai/my-finetune')).toMatchObject({
      upstreamName: 'ft:gpt-4o-mini-2024-07-18:acme::abc123',
      prices: { inputPerMillion: 300_000, outputPerMillion: 1_200_000, cachedInputPerMillion: 150_000 },
    });

    // The together provider was not passed in (no credentials): its models and references are skipped.
    expect(catalog.models.some((model) => model.providerId === 'together')).toBe(false);

    // Aliases resolve in one lookup.
    expect(resolveModel(catalog, 'fast')?.id).toBe('openai/gpt-4o-mini');
    expect(resolveModel(catalog, 'smart')?.id).toBe('anthropic/claude-sonnet-4-5');
    expect(resolveModel(catalog, 'local')?.id).toBe('ollama/llama3.2');

    // Plans with globs and aliases.
    expect(isModelInPlan(catalog, 'free', 'ollama/llama3.2')).toBe(true);
    expect(isModelInPlan(catalog, 'free', 'fast')).toBe(true);
    expect(isModelInPlan(catalog, 'free', 'openai/gpt-4o-mini')).toBe(true);
    expect(isModelInPlan(catalog, 'free', 'openai/gpt-4o')).toBe(false);
    expect(isModelInPlan(catalog, 'pro', 'openai/o3')).toBe(true);
    expect(isModelInPlan(catalog, 'pro', 'anthropic/claude-sonnet-4-5')).toBe(true);
    expect(isModelInPlan(catalog, 'pro', 'anthropic/claude-sonnet-4-5-20250929')).toBe(true);
    expect(isModelInPlan(catalog, 'pro', 'anthropic/claude-haiku-4-5')).toBe(false);
    expect(isModelInPlan(catalog, 'pro', 'google/gemini-2.5-flash')).toBe(false);
    expect(isModelInPlan(catalog, 'no-such-plan', 'fast')).toBe(false);
    expect(modelsForPlan(catalog, 'free').map((model) => model.id)).toEqual(['ollama/llama3.2', 'ollama/qwen2.5-coder:7b', 'openai/gpt-4o-mini']);

    // Without a configured default plan, `default` allows the whole catalog.
    expect(modelsForPlan(catalog, DEFAULT_PLAN)).toHaveLength(catalog.models.length);
    expect(isModelInPlan(catalog, DEFAULT_PLAN, 'google/gemini-2.5-flash')).toBe(true);
  });

  it('lets config restrict the default plan', () => {
    const config = parseCatalogConfig({ plans: { default: { models: ['openai/gpt-4o-mini'] } } });
    const catalog = buildCatalog({ providers: BUILT_IN, config, now: NOW });
    expect(modelsForPlan(catalog).map((model) => model.id)).toEqual(['openai/gpt-4o-mini']);
    expect(isModelInPlan(catalog, DEFAULT_PLAN, 'openai/gpt-4o')).toBe(false);
  });

  it('warns about, rather than fails on, entries for providers that are not configured', () => {
    const config = parseCatalogConfig({ aliases: { smart: 'anthropic/claude-sonnet-4-5' }, models: { 'anthropic/claude-sonnet-4-5': { max_output_tokens: 1 } } });
    const catalog = buildCatalog({ providers: [{ id: 'openai', kind: 'openai' }], config, now: NOW });
    expect(resolveModel(catalog, 'smart')).toBeUndefined();
    expect(catalog.warnings).toHaveLength(2);
  });

  it('fails on dangling references to configured providers, naming each config path', async () => {
    const config = await loadCatalogConfig(fixture('dangling.yaml'));
    const build = () => buildCatalog({ providers: BUILT_IN, config, configSource: 'dangling.yaml', now: NOW });
    expect(build).toThrow(CatalogConfigError);
    try {
      build();
    } catch (error) {
      const issues = error instanceof CatalogConfigError ? error.issues : [];
      expect(issues.map((issue) => issue.path)).toEqual(['models["openai/brand-new-model"].prices', 'aliases.typo', 'plans.pro.models[2]']);
      expect(String(error)).toContain('dangling.yaml');
    }
  });
});
