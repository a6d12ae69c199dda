import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/catalog/build-catalog.ts';
import { parseCatalogConfig, providerConfigsFromCatalogConfig } from '../../../src/catalog/load-config.ts';

const NOW = new Date('2026-06-15T00:00:00Z');
const AWS = { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_REGION: 'us-west-2' };

describe('Bedrock in the catalog', () => {
  const catalog = buildCatalog({ providers: [{ id: 'bedrock', kind: 'bedrock' }], now: NOW });

  it("lists Bedrock's model ids with the published Bedrock prices", () => {
    const regional = catalog.lookup.get('bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(regional).toMatchObject({ providerKind: 'bedrock', upstreamName: 'anthropic.claude-sonnet-4-5-20250929-v1:0', source: 'genai-prices' });
    expect(regional?.prices).toMatchObject({ inputPerMillion: 3_300_000, outputPerMillion: 16_500_000, cachedInputPerMillion: 330_000, cacheWritePerMillion: 4_125_000 });
    expect([...(regional?.capabilities ?? [])]).toEqual(['chat', 'tools', 'vision', 'reasoning']);
    expect(catalog.lookup.get('bedrock/global.anthropic.claude-sonnet-4-5-20250929-v1:0')?.prices).toMatchObject({ inputPerMillion: 3_000_000, outputPerMillion: 15_000_000 });
    expect(catalog.lookup.get('bedrock/amazon.nova-pro-v1:0')?.prices).toMatchObject({ inputPerMillion: 800_000, outputPerMillion: 3_200_000, cachedInputPerMillion: 200_000 });
    expect(catalog.lookup.get('bedrock/meta.llama3-3-70b-instruct-v1:0')?.capabilities.has('tools')).toBe(true);
  });

  it('leaves out what Converse does not serve, and price-group names', () => {
    const ids = catalog.models.map((model) => model.id);
    expect(ids.some((id) => id.includes('sonic') || id.includes('embed') || id.includes('titan-text'))).toBe(false);
    expect(ids.some((id) => id.startsWith('bedrock/regional.'))).toBe(false);
  });
});

describe('the bedrock provider from the environment', () => {
  const empty = parseCatalogConfig({});

  it('is off with AWS credentials alone, on with BEDROCK_REGION or a Bedrock API key', () => {
    expect(providerConfigsFromCatalogConfig(empty, AWS).providers.map((provider) => provider.id)).toEqual([]);
    expect(providerConfigsFromCatalogConfig(empty, { ...AWS, BEDROCK_REGION: 'eu-central-1' }).providers).toEqual([
      {
        id: 'bedrock',
        kind: 'bedrock',
        baseUrl: 'https://bedrock-runtime.eu-central-1.amazonaws.com',
        bedrock: { region: 'eu-central-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } },
      },
    ]);
    expect(providerConfigsFromCatalogConfig(empty, { AWS_BEARER_TOKEN_BEDROCK: 'ABSK-key' }).providers).toEqual([
      { id: 'bedrock', kind: 'bedrock', baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com', apiKey: 'ABSK-key', bedrock: { region: 'us-east-1' } },
    ]);
  });

  it('gives each deployment on bedrock its region, endpoint and key, and skips one without credentials', () => {
    const config = parseCatalogConfig({
      models: {
        'anthropic/claude-sonnet-4-5': {
          deployments: [
            { provider: 'bedrock', name: 'bedrock-us', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
            { provider: 'bedrock', name: 'bedrock-eu', model: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0', region: 'eu-west-1' },
            { provider: 'bedrock', name: 'bedrock-team', model: 'anthropic.claude-sonnet-4-5-20250929-v1:0', api_key_env: 'TEAM_BEDROCK_KEY' },
          ],
        },
      },
    });
    const configured = providerConfigsFromCatalogConfig(config, AWS);
    expect(configured.deployments.map((deployment) => [deployment.id, deployment.baseUrl, deployment.bedrock?.region])).toEqual([
      ['anthropic/claude-sonnet-4-5@bedrock-us', 'https://bedrock-runtime.us-west-2.amazonaws.com', 'us-west-2'],
      ['anthropic/claude-sonnet-4-5@bedrock-eu', 'https://bedrock-runtime.eu-west-1.amazonaws.com', 'eu-west-1'],
    ]);
    expect(configured.skipped).toEqual([{ id: 'anthropic/claude-sonnet-4-5@bedrock-team', reason: 'environment variable TEAM_BEDROCK_KEY is not set' }]);

    const served = buildCatalog({ providers: [{ id: 'anthropic', kind: 'anthropic' }], config, now: NOW }).lookup.get('anthropic/claude-sonnet-4-5');
    const [us] = served?.deployments ?? [];
    // Served on Bedrock, the call is billed at Bedrock's regional price, not Anthropic's own.
    expect(us?.served).toMatchObject({ providerId: 'bedrock-us', providerKind: 'bedrock', prices: { inputPerMillion: 3_300_000, outputPerMillion: 16_500_000 } });
    expect(served?.prices).toMatchObject({ inputPerMillion: 3_000_000, outputPerMillion: 15_000_000 });
  });
});
