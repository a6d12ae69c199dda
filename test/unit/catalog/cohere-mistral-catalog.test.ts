import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/catalog/build-catalog.ts';
import { parseCatalogConfig, providerConfigsFromCatalogConfig } from '../../../src/catalog/load-config.ts';
import { droppedParams } from '../../../src/gateway/tolerant-reader.ts';

const NOW = new Date('2026-06-15T00:00:00Z');

describe('Cohere and Mistral in the catalog', () => {
  const catalog = buildCatalog({
    providers: [
      { id: 'cohere', kind: 'cohere' },
      { id: 'mistral', kind: 'mistral' },
    ],
    now: NOW,
  });

  it('lists models by the names their APIs take, at the published prices', () => {
    expect(catalog.lookup.get('cohere/command-a-03-2025')).toMatchObject({
      providerKind: 'cohere',
      upstreamName: 'command-a-03-2025',
      prices: { inputPerMillion: 2_500_000, outputPerMillion: 10_000_000 },
    });
    expect([...(catalog.lookup.get('cohere/command-r-plus')?.capabilities ?? [])]).toEqual(['chat', 'tools', 'json_output']);
    expect(catalog.lookup.get('mistral/mistral-large-latest')).toMatchObject({
      providerKind: 'mistral',
      upstreamName: 'mistral-large-latest',
      prices: { inputPerMillion: 2_000_000, outputPerMillion: 6_000_000 },
    });
    expect(catalog.lookup.get('mistral/open-mistral-nemo')?.upstreamName).toBe('open-mistral-nemo');
    expect(catalog.lookup.get('mistral/mistral-embed')?.capabilities.has('embeddings')).toBe(true);
    expect(catalog.lookup.get('mistral/magistral-medium-latest')?.capabilities.has('reasoning')).toBe(true);
  });

  it('leaves out price-group names, OCR, audio, router listings and what the adapters do not speak', () => {
    const ids = catalog.models.map((model) => model.id);
    for (const gone of ['cohere/command-a', 'cohere/command', 'mistral/mistral-large', 'mistral/codestral', 'mistral/mistral-nemo:free']) expect(ids).not.toContain(gone);
    expect(ids.some((id) => id.includes('ocr') || id.includes('voxtral'))).toBe(false);
  });

  it("lists Cohere's embedding models for /v2/embed: Embed 4 at the published price, the Embed 3 family at Cohere's list price", () => {
    expect(catalog.lookup.get('cohere/embed-v4.0')).toMatchObject({ providerKind: 'cohere', upstreamName: 'embed-v4.0', prices: { inputPerMillion: 120_000 } });
    expect([...(catalog.lookup.get('cohere/embed-v4.0')?.capabilities ?? [])]).toEqual(['embeddings']);
    for (const name of ['embed-english-v3.0', 'embed-multilingual-v3.0', 'embed-english-light-v3.0', 'embed-multilingual-light-v3.0']) {
      expect(catalog.lookup.get(`cohere/${name}`)).toMatchObject({ upstreamName: name, contextLength: 512, prices: { inputPerMillion: 100_000 } });
      expect(catalog.lookup.get(`cohere/${name}`)?.capabilities.has('chat')).toBe(false);
    }
  });

  it('knows the dated names the price data prices as a listed model', () => {
    expect(catalog.lookup.get('cohere/command-r-plus')?.acceptsSnapshot?.('command-r-plus-08-2024')).toBe(true);
    expect(catalog.lookup.get('mistral/mistral-large-latest')?.acceptsSnapshot?.('mistral-large-2411')).toBe(true);
  });
});

describe('the cohere and mistral providers from the environment', () => {
  const empty = parseCatalogConfig({});

  it('are on with their key, at their base URL or the one their variable moves them to', () => {
    expect(providerConfigsFromCatalogConfig(empty, {}).providers).toEqual([]);
    expect(providerConfigsFromCatalogConfig(empty, { COHERE_API_KEY: 'co-key', MISTRAL_API_KEY: 'mi-key', MISTRAL_BASE_URL: 'http://127.0.0.1:9/v1/' }).providers).toEqual([
      { id: 'cohere', kind: 'cohere', baseUrl: 'https://api.cohere.com', apiKey: 'co-key' },
      { id: 'mistral', kind: 'mistral', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'mi-key' },
    ]);
  });

  it('give deployments their kind and key, and skip one whose key is missing', () => {
    const config = parseCatalogConfig({
      models: {
        'team/chat': {
          prices: { input: 1, output: 2 },
          deployments: [
            { provider: 'cohere', model: 'command-a-03-2025' },
            { provider: 'mistral', model: 'mistral-small-latest', api_key_env: 'TEAM_MISTRAL_KEY' },
          ],
        },
      },
    });
    const configured = providerConfigsFromCatalogConfig(config, { COHERE_API_KEY: 'co-key' });
    expect(configured.deployments).toEqual([{ id: 'team/chat@cohere', kind: 'cohere', baseUrl: 'https://api.cohere.com', apiKey: 'co-key' }]);
    expect(configured.skipped).toEqual([{ id: 'team/chat@mistral', reason: 'environment variable TEAM_MISTRAL_KEY is not set' }]);
    const served = buildCatalog({ providers: [], config, now: NOW }).lookup.get('team/chat');
    expect(served?.deployments?.map((deployment) => deployment.served.providerKind)).toEqual(['cohere', 'mistral']);
  });

  it('an OpenAI-format field reaches Mistral, and is named dropped for Cohere', () => {
    const unknown = { topLevel: { safe_prompt: true }, nested: [] };
    expect(droppedParams('openai', 'mistral', unknown)).toEqual([]);
    expect(droppedParams('openai', 'cohere', unknown)).toEqual(['safe_prompt']);
    expect(droppedParams('anthropic', 'mistral', unknown)).toEqual(['safe_prompt']);
  });
});
