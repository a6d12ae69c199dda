import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/catalog/build-catalog.ts';
import { CatalogConfigError } from '../../../src/catalog/config-error.ts';
import { parseCatalogConfig, providerConfigsFromCatalogConfig } from '../../../src/catalog/load-config.ts';
import type { CatalogModel } from '../../../src/catalog/types.ts';
import type { ProviderConfig } from '../../../src/providers/adapter.ts';
import { attemptLimits } from '../../../src/routing/attempt-limits.ts';

const config = parseCatalogConfig({
  models: {
    'openai/gpt-4o': {
      timeout_ms: 20_000,
      stream_idle_timeout_ms: 15_000,
      deployments: [
        { provider: 'openai', name: 'own', timeout_ms: 5_000 },
        { provider: 'openai', name: 'inherits' },
      ],
    },
    'openai/gpt-4o-mini': { deployments: [{ provider: 'openai', name: 'bare' }] },
    'openai/gpt-4.1': { timeout_ms: 9_000 },
  },
});
const catalog = buildCatalog({ providers: [{ id: 'openai', kind: 'openai' }], config, now: new Date('2026-01-01T00:00:00Z') });

const served = (model: string, label: string): CatalogModel => {
  const found = catalog.lookup.get(model)?.deployments?.find((deployment) => deployment.label === label)?.served;
  if (!found) throw new Error(`no deployment ${label} of ${model}`);
  return found;
};
const model = (id: string): CatalogModel => catalog.lookup.get(id) as CatalogModel;
const provider = (timeoutMs?: number): ProviderConfig => ({ id: 'openai', kind: 'openai', baseUrl: 'https://api.openai.com/v1', ...(timeoutMs && { timeoutMs }) });

describe('attempt limits', () => {
  it('rank the deployment over the model over the provider over the 60 s default', () => {
    expect(attemptLimits(served('openai/gpt-4o', 'own'), provider(30_000), undefined)).toEqual({ firstByteMs: 5_000, streamIdleMs: 15_000 });
    expect(attemptLimits(served('openai/gpt-4o', 'inherits'), provider(30_000), undefined)).toEqual({ firstByteMs: 20_000, streamIdleMs: 15_000 });
    expect(attemptLimits(model('openai/gpt-4.1'), provider(30_000), undefined)).toEqual({ firstByteMs: 9_000, streamIdleMs: undefined });
    expect(attemptLimits(served('openai/gpt-4o-mini', 'bare'), provider(30_000), 45_000)).toEqual({ firstByteMs: 30_000, streamIdleMs: undefined });
    expect(attemptLimits(served('openai/gpt-4o-mini', 'bare'), provider(), 90_000)).toEqual({ firstByteMs: 60_000, streamIdleMs: undefined });
  });

  it('let a request shorten the wait, never lengthen it', () => {
    expect(attemptLimits(served('openai/gpt-4o', 'own'), provider(), 1_000)?.firstByteMs).toBe(1_000);
    expect(attemptLimits(served('openai/gpt-4o', 'own'), provider(), 600_000)?.firstByteMs).toBe(5_000);
    expect(attemptLimits(model('openai/gpt-4.1'), provider(), 600_000)?.firstByteMs).toBe(9_000);
  });

  it('are nothing of their own when neither the config nor the request sets one: the provider wait applies in the HTTP client', () => {
    expect(attemptLimits(served('openai/gpt-4o-mini', 'bare'), provider(30_000), undefined)).toBeUndefined();
  });

  it('refuse a timeout that is not a positive whole number of milliseconds', () => {
    const issues = (raw: unknown) => {
      try {
        parseCatalogConfig(raw);
        return [];
      } catch (error) {
        if (error instanceof CatalogConfigError) return error.issues.map((issue) => issue.path);
        throw error;
      }
    };
    expect(issues({ models: { 'openai/gpt-4o': { timeout_ms: 0 } } })).toEqual(['models["openai/gpt-4o"].timeout_ms']);
    expect(issues({ models: { 'openai/gpt-4o': { deployments: [{ provider: 'openai', stream_idle_timeout_ms: 1.5 }] } } })).toEqual(['models["openai/gpt-4o"].deployments[0].stream_idle_timeout_ms']);
  });

  it('take JUNCTION_UPSTREAM_TIMEOUT_MS as the wait of every provider without its own, presets included', () => {
    const configured = providerConfigsFromCatalogConfig(parseCatalogConfig({ providers: { ollama: { models: ['llama3.2'], timeout_ms: 7_000 } } }), {
      GROQ_API_KEY: 'gsk',
      OPENAI_API_KEY: 'sk',
      JUNCTION_UPSTREAM_TIMEOUT_MS: '12000',
    });
    expect(Object.fromEntries(configured.providers.map((entry) => [entry.id, entry.timeoutMs]))).toEqual({ ollama: 7_000, groq: 12_000 });
  });
});
