import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/catalog/build-catalog.ts';
import { CatalogConfigError } from '../../../src/catalog/config-error.ts';
import { parseCatalogConfig, providerConfigsFromCatalogConfig } from '../../../src/catalog/load-config.ts';

const issuesOf = (raw: unknown) => {
  try {
    parseCatalogConfig(raw);
  } catch (error) {
    if (error instanceof CatalogConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a CatalogConfigError');
};

describe('deployments in the config file', () => {
  it('refuses a provider the docs do not name, and a label used twice', () => {
    expect(issuesOf({ models: { 'openai/gpt-4o': { deployments: [{ provider: 'bedrockish' }] } } })).toEqual([
      { path: 'models["openai/gpt-4o"].deployments[0].provider', message: 'unknown provider bedrockish' },
    ]);
    const twice = issuesOf({
      models: {
        'openai/gpt-4o': {
          deployments: [
            { provider: 'openai', name: 'main' },
            { provider: 'groq', name: 'main' },
          ],
        },
      },
    });
    expect(twice.map((issue) => issue.message)).toEqual(['deployment name main is used twice']);
  });

  it('needs a base_url only for providers that are no preset', () => {
    expect(issuesOf({ providers: { mine: { models: ['a'] } } }).map((issue) => issue.path)).toEqual(['providers.mine.base_url']);
    expect(parseCatalogConfig({ providers: { ollama: { models: ['llama3.2'] } } }).providers['ollama']?.baseUrl).toBeUndefined();
  });

  it('labels repeated providers and builds one adapter config per deployment, its key from its own variable', () => {
    const config = parseCatalogConfig({
      models: {
        'openai/gpt-4o': {
          deployments: [
            { provider: 'openai' },
            { provider: 'openai', base_url: 'https://eu.example.com/v1', api_key_env: 'EU_OPENAI_KEY', weight: 2 },
            { provider: 'groq', model: 'llama-3.3-70b' },
            { provider: 'ollama', priority: 1 },
          ],
        },
      },
    });
    const configured = providerConfigsFromCatalogConfig(config, { OPENAI_API_KEY: 'sk-main', EU_OPENAI_KEY: 'sk-eu' });
    expect(configured.deployments).toEqual([
      { id: 'openai/gpt-4o@openai', kind: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-main' },
      { id: 'openai/gpt-4o@openai-2', kind: 'openai', baseUrl: 'https://eu.example.com/v1', apiKey: 'sk-eu' },
      { id: 'openai/gpt-4o@ollama', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' },
    ]);
    expect(configured.skipped).toEqual([{ id: 'openai/gpt-4o@groq', reason: 'environment variable GROQ_API_KEY is not set' }]);

    const catalog = buildCatalog({ providers: [{ id: 'openai', kind: 'openai' }], config, now: new Date('2026-01-01T00:00:00Z') });
    const deployments = catalog.lookup.get('openai/gpt-4o')?.deployments ?? [];
    expect(deployments.map(({ label, weight, priority, served }) => ({ label, weight, priority, provider: served.providerId, upstream: served.upstreamName }))).toEqual([
      { label: 'openai', weight: 1, priority: 0, provider: 'openai', upstream: 'gpt-4o' },
      { label: 'openai-2', weight: 2, priority: 0, provider: 'openai-2', upstream: 'gpt-4o' },
      { label: 'groq', weight: 1, priority: 0, provider: 'groq', upstream: 'llama-3.3-70b' },
      { label: 'ollama', weight: 1, priority: 1, provider: 'ollama', upstream: 'gpt-4o' },
    ]);
  });

  it('turns on hosted presets and Azure from the environment alone', () => {
    const configured = providerConfigsFromCatalogConfig(parseCatalogConfig({}), {
      GROQ_API_KEY: 'gsk',
      AZURE_OPENAI_ENDPOINT: 'https://res.openai.azure.com/',
      AZURE_OPENAI_API_KEY: 'az',
    });
    expect(configured.providers).toEqual([
      { id: 'groq', kind: 'openai-compatible', baseUrl: 'https://api.groq.com/openai/v1', apiKey: 'gsk' },
      { id: 'azure', kind: 'openai-compatible', baseUrl: 'https://res.openai.azure.com', apiKey: 'az', query: { 'api-version': '2024-10-21' }, azure: {} },
    ]);
  });
});
