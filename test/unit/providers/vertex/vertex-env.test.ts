import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../../src/catalog/build-catalog.ts';
import { parseCatalogConfigYaml } from '../../../../src/catalog/load-config.ts';
import { configuredProviders } from '../../../../src/catalog/configured-providers.ts';
import { vertexProviderConfig } from '../../../../src/providers/vertex/vertex-env.ts';
import { vertexModelPath, vertexPublisher } from '../../../../src/providers/vertex/vertex-call.ts';

const PRIVATE_KEY = '-----BEGIN PRIVATE KEY-----\nnot-a-real-key\n-----END PRIVATE KEY-----\n';
const keyJson = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'service_account', client_email: 'svc@key-project.iam.gserviceaccount.com', private_key: PRIVATE_KEY, project_id: 'key-project', ...fields });

const folder = mkdtempSync(join(tmpdir(), 'junction-vertex-env-'));
const keyFile = join(folder, 'key.json');
writeFileSync(keyFile, keyJson());
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('a Vertex deployment from the environment', () => {
  it('reads GOOGLE_APPLICATION_CREDENTIALS, prefers VERTEX_PROJECT to the key, and addresses the global endpoint by default', () => {
    const made = vertexProviderConfig('m@vertex', {}, { GOOGLE_APPLICATION_CREDENTIALS: keyFile, VERTEX_PROJECT: 'env-project' });
    expect(made).toMatchObject({ id: 'm@vertex', baseUrl: 'https://aiplatform.googleapis.com', vertex: { project: 'env-project', location: 'global' } });
    expect(typeof made === 'object' && made.vertex?.key).toMatchObject({ clientEmail: 'svc@key-project.iam.gserviceaccount.com', tokenUri: 'https://oauth2.googleapis.com/token' });
  });

  it("takes the region as the location and its regional endpoint; a deployment's own key is its own project", () => {
    const made = vertexProviderConfig('m@vertex', { keyEnv: 'TEAM_KEY', region: 'us-east5' }, { TEAM_KEY: keyJson(), VERTEX_PROJECT: 'env-project', VERTEX_LOCATION: 'europe-west4' });
    expect(made).toMatchObject({ baseUrl: 'https://us-east5-aiplatform.googleapis.com', vertex: { project: 'key-project', location: 'us-east5' } });
    const fromEnv = vertexProviderConfig('m@vertex', {}, { GOOGLE_APPLICATION_CREDENTIALS: keyFile, GOOGLE_CLOUD_LOCATION: 'europe-west4' });
    expect(fromEnv).toMatchObject({ baseUrl: 'https://europe-west4-aiplatform.googleapis.com', vertex: { project: 'key-project', location: 'europe-west4' } });
  });

  it('says why it cannot be used, never echoing the key', () => {
    expect(vertexProviderConfig('m@vertex', {}, {})).toContain('GOOGLE_APPLICATION_CREDENTIALS is not set');
    expect(vertexProviderConfig('m@vertex', { keyEnv: 'TEAM_KEY' }, {})).toBe('environment variable TEAM_KEY is not set');
    expect(vertexProviderConfig('m@vertex', { keyEnv: 'TEAM_KEY' }, { TEAM_KEY: `{"private_key":"${'x'.repeat(20)}"` })).toBe('environment variable TEAM_KEY is not JSON');
    const wrong = vertexProviderConfig('m@vertex', { keyEnv: 'TEAM_KEY' }, { TEAM_KEY: keyJson({ type: 'authorized_user' }) });
    expect(wrong).toBe('environment variable TEAM_KEY is not a service-account key (check type)');
    expect(vertexProviderConfig('m@vertex', {}, { GOOGLE_APPLICATION_CREDENTIALS: join(folder, 'missing.json') })).toBe('GOOGLE_APPLICATION_CREDENTIALS could not be read (ENOENT)');
    expect(vertexProviderConfig('m@vertex', { keyEnv: 'TEAM_KEY' }, { TEAM_KEY: keyJson({ project_id: undefined }) })).toContain('no project');
  });
});

describe('Vertex addressing', () => {
  it('sends Claude to the anthropic publisher, keeping its @version literal, and the rest to google', () => {
    expect(vertexPublisher('claude-sonnet-4-5@20250929')).toBe('anthropic');
    expect(vertexPublisher('gemini-2.5-pro')).toBe('google');
    const settings = { project: 'p', location: 'us-east5', key: { clientEmail: '', privateKey: '', privateKeyId: undefined, projectId: undefined, tokenUri: '' } };
    expect(vertexModelPath(settings, 'anthropic', 'claude-sonnet-4-5@20250929', 'rawPredict')).toBe(
      '/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
    );
  });

  it('a model served only through Vertex is of its family: published prices, and the wire kind of the model it serves', () => {
    const config = parseCatalogConfigYaml(
      `
models:
  anthropic/claude-sonnet-4-5:
    deployments: [{ provider: vertex, model: claude-sonnet-4-5@20250929, region: us-east5 }]
  google/gemini-2.5-flash:
    deployments: [{ provider: vertex }]
`,
      'junction.yaml',
    );
    const catalog = buildCatalog({ providers: [], config });
    const claude = catalog.lookup.get('anthropic/claude-sonnet-4-5');
    expect(claude?.prices.inputPerMillion).toBeGreaterThan(0);
    expect(claude?.deployments?.[0]?.served).toMatchObject({ providerId: 'vertex', providerKind: 'anthropic', upstreamName: 'claude-sonnet-4-5@20250929' });
    expect(catalog.lookup.get('google/gemini-2.5-flash')?.deployments?.[0]?.served.providerKind).toBe('gemini');
    const adapters = configuredProviders(config, { GOOGLE_APPLICATION_CREDENTIALS: keyFile });
    expect(adapters.deployments.map((deployment) => [deployment.id, deployment.vertex?.location])).toEqual([
      ['anthropic/claude-sonnet-4-5@vertex', 'us-east5'],
      ['google/gemini-2.5-flash@vertex', 'global'],
    ]);
  });
});
