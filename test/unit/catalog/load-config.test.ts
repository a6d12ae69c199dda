import { describe, expect, it } from 'vitest';
import { CatalogConfigError } from '../../../src/catalog/config-error.ts';
import { loadCatalogConfig, parseCatalogConfig, parseCatalogConfigYaml, providerConfigsFromCatalogConfig } from '../../../src/catalog/load-config.ts';

const fixture = (name: string): string => new URL(`../../fixtures/catalog/${name}`, import.meta.url).pathname;

const issuesOf = async (load: () => Promise<unknown> | unknown): Promise<CatalogConfigError> => {
  try {
    await load();
  } catch (error) {
    if (error instanceof CatalogConfigError) return error;
    throw error;
  }
  throw new Error('expected a CatalogConfigError');
};

describe('loadCatalogConfig', () => {
  it('parses the fixture into camelCase config with exact µUSD prices', async () => {
    const config = await loadCatalogConfig(fixture('valid.yaml'));
    expect(config.aliases).toEqual({ fast: 'openai/gpt-4o-mini', smart: 'anthropic/claude-sonnet-4-5', local: 'ollama/llama3.2' });
    expect(config.plans['pro']?.models).toEqual(['openai/*', 'anthropic/claude-sonnet-4-5', 'ollama/*']);
    expect(config.models['openai/my-finetune']?.prices).toEqual({ inputPerMillion: 300_000, outputPerMillion: 1_200_000, cachedInputPerMillion: 150_000 });
    expect(config.models['openai/gpt-4o-2024-05-13']?.disabled).toBe(true);
    expect(config.providers['ollama']?.models.map((model) => model.name)).toEqual(['llama3.2', 'qwen2.5-coder:7b']);
  });

  it('returns an empty config when no file is named and the default file is absent', async () => {
    const config = await loadCatalogConfig(undefined, { JUNCTION_CONFIG: undefined });
    expect(config).toEqual({ providers: {}, models: {}, aliases: {}, plans: {}, currencies: {} });
  });

  it('fails when a named file is missing', async () => {
    const error = await issuesOf(() => loadCatalogConfig(fixture('missing.yaml')));
    expect(error.message).toContain('missing.yaml');
  });

  it('rejects unknown keys, naming the file and the path', async () => {
    const error = await issuesOf(() => loadCatalogConfig(fixture('unknown-key.yaml')));
    expect(error.source).toBe(fixture('unknown-key.yaml'));
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.path).toBe('models["openai/gpt-4o-mini"]');
    expect(error.issues[0]?.message).toContain('max_output_token');
    expect(error.message).toContain('unknown-key.yaml');
  });

  it('reports every bad value with its path', async () => {
    const error = await issuesOf(() => loadCatalogConfig(fixture('bad-values.yaml')));
    const paths = error.issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'providers.openai',
        'providers.local.kind',
        'providers.local.base_url',
        'models["openai/gpt-4o"].prices.input',
        'models["openai/gpt-4o"].capabilities[1]',
        'aliases["bad/alias"]',
      ]),
    );
    expect(error.issues.find((issue) => issue.path.endsWith('prices.input'))?.message).toContain('finer than the catalog stores');
  });

  it('reports YAML syntax problems with their line', async () => {
    const error = await issuesOf(() => loadCatalogConfig(fixture('broken.yaml')));
    expect(error.issues[0]?.path).toMatch(/^line \d+, column \d+$/);
    expect(error.message).toContain('broken.yaml');
  });

  it('converts config prices exactly, in every unit', () => {
    const config = parseCatalogConfig({
      models: {
        'openai/x': {
          prices: {
            input: 0.075,
            output: '0.3',
            per_image: 0.04,
            per_million_characters: 15,
            per_audio_minute: 0.006,
            input_tiers: [{ above_input_tokens: 128_000, input: 0.15 }],
          },
        },
      },
    });
    expect(config.models['openai/x']?.prices).toEqual({
      inputPerMillion: 75_000,
      outputPerMillion: 300_000,
      perImage: 40_000,
      charactersPerMillion: 15_000_000,
      audioSecondsPerMillion: 100_000_000,
      inputTiers: [{ aboveInputTokens: 128_000, inputPerMillion: 150_000 }],
    });
  });

  it('names inline sources too', () => {
    expect(() => parseCatalogConfigYaml('plans:\n  pro:\n    model: []\n', 'inline.yaml')).toThrow(/inline\.yaml[\s\S]*plans\.pro/);
  });
});

describe('providerConfigsFromCatalogConfig', () => {
  it('builds ProviderConfig for openai-compatible providers, skipping those whose key variable is unset', async () => {
    const config = await loadCatalogConfig(fixture('valid.yaml'));
    const without = providerConfigsFromCatalogConfig(config, {});
    expect(without.providers).toEqual([{ id: 'ollama', kind: 'openai-compatible', baseUrl: 'http://localhost:11434/v1' }]);
    expect(without.skipped).toEqual([{ id: 'together', reason: 'environment variable TOGETHER_API_KEY is not set' }]);

    const withKey = providerConfigsFromCatalogConfig(config, { TOGETHER_API_KEY: 'tk-123' });
    expect(withKey.skipped).toEqual([]);
    expect(withKey.providers[1]).toEqual({
      id: 'together',
      kind: 'openai-compatible',
      baseUrl: 'https://api.together.xyz/v1',
      apiKey: 'tk-123',
      headers: { 'X-Team': 'research' },
      timeoutMs: 60_000,
    });
  });
});
