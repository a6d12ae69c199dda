/**
 * The providers the config file and the environment add beside openai, anthropic and google
 * (providersFromEnv): the file's `providers:`, the presets whose key variable is set, Azure
 * OpenAI from its AZURE_OPENAI_* variables, Amazon Bedrock from its AWS variables, Cohere and
 * Mistral from their key variables (native-providers.ts), and one
 * adapter config per model deployment (Vertex AI's from its service account, project and
 * location: see vertex-env.ts; Bedrock's from its key or AWS credentials: see bedrock-env.ts).
 */
import type { ProviderConfig } from '../providers/adapter.ts';
import { DEFAULT_AZURE_API_VERSION } from '../providers/azure/azure-adapter.ts';
import { bedrockConfiguredInEnv, bedrockProviderConfig } from '../providers/bedrock/bedrock-env.ts';
import { NATIVE_PROVIDERS, type NativeProvider, nativeProviderOf } from '../providers/native-providers.ts';
import { PROVIDER_PRESETS, presetBaseUrl, presetOf } from '../providers/provider-presets.ts';
import { vertexProviderConfig } from '../providers/vertex/vertex-env.ts';
import type { CatalogConfig, CompatibleProviderConfig } from './config-schema.ts';
import { deploymentAdapterKey, deploymentLabels, type DeploymentConfig } from './deployment-schema.ts';

type Env = Readonly<Record<string, string | undefined>>;

export type ConfiguredProviders = {
  providers: ProviderConfig[];
  /** One adapter config per model deployment, keyed `<model id>@<label>`; not catalog providers. */
  deployments: ProviderConfig[];
  /** Providers and deployments left out, e.g. because their key variable is unset. */
  skipped: Array<{ id: string; reason: string }>;
};

/** Where a provider is reached before a deployment overrides anything; `keyEnv` unset means it takes no key. */
type ProviderBase = Omit<ProviderConfig, 'id' | 'apiKey'> & { keyEnv: string | undefined; bearerTokenEnv?: string | undefined };

/** The built-in providers as providersFromEnv reaches them. */
const BUILTIN_BASES: Record<string, (env: Env) => ProviderBase> = {
  openai: (env) => ({ kind: 'openai', baseUrl: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1', keyEnv: 'OPENAI_API_KEY' }),
  anthropic: (env) => ({ kind: 'anthropic', baseUrl: env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com/v1', keyEnv: 'ANTHROPIC_API_KEY' }),
  google: (env) => ({ kind: 'gemini', baseUrl: env.GEMINI_BASE_URL ?? 'https://generativelanguage.googleapis.com/v1beta', keyEnv: 'GEMINI_API_KEY' }),
};

/** A native provider (Cohere, Mistral) as its variables reach it. */
const nativeBase = (native: NativeProvider, env: Env): ProviderBase => ({ kind: native.kind, baseUrl: env[native.baseUrlEnv] || native.baseUrl, keyEnv: native.apiKeyEnv });

/** Every provider's wait for headers when its own `timeout_ms` is unset, presets and Azure included. */
const upstreamTimeout = (env: Env): { timeoutMs?: number } => (env.JUNCTION_UPSTREAM_TIMEOUT_MS ? { timeoutMs: Number(env.JUNCTION_UPSTREAM_TIMEOUT_MS) } : {});

/** Azure OpenAI from the environment, when AZURE_OPENAI_ENDPOINT is set. */
const azureFromEnv = (env: Env): ProviderBase | undefined =>
  env.AZURE_OPENAI_ENDPOINT
    ? {
        kind: 'openai-compatible',
        baseUrl: env.AZURE_OPENAI_ENDPOINT,
        keyEnv: 'AZURE_OPENAI_API_KEY',
        bearerTokenEnv: 'AZURE_OPENAI_AD_TOKEN',
        query: { 'api-version': env.AZURE_OPENAI_API_VERSION ?? DEFAULT_AZURE_API_VERSION },
        azure: {},
      }
    : undefined;

const fileProviderBase = (id: string, provider: CompatibleProviderConfig, env: Env): ProviderBase => {
  const preset = presetOf(id);
  const azure = provider.kind === 'azure';
  return {
    kind: 'openai-compatible',
    // The schema refuses a provider without base_url unless it is a preset.
    baseUrl: provider.baseUrl ?? (preset ? presetBaseUrl(preset, env) : ''),
    keyEnv: provider.apiKeyEnv ?? preset?.apiKeyEnv,
    ...(provider.headers && { headers: provider.headers }),
    ...((provider.query || azure) && { query: { ...(azure && { 'api-version': provider.apiVersion ?? DEFAULT_AZURE_API_VERSION }), ...provider.query } }),
    ...(provider.timeoutMs && { timeoutMs: provider.timeoutMs }),
    ...(azure && { azure: {}, bearerTokenEnv: provider.bearerTokenEnv }),
  };
};

/** The base a deployment of `providerId` starts from, or undefined when nothing configures it. */
function providerBase(providerId: string, config: CatalogConfig, env: Env): ProviderBase | undefined {
  const fromFile = config.providers[providerId];
  if (fromFile) return fileProviderBase(providerId, fromFile, env);
  const builtin = BUILTIN_BASES[providerId];
  if (builtin) return builtin(env);
  if (providerId === 'azure') return azureFromEnv(env);
  const native = nativeProviderOf(providerId);
  if (native) return nativeBase(native, env);
  const preset = presetOf(providerId);
  return preset ? { kind: 'openai-compatible', baseUrl: presetBaseUrl(preset, env), keyEnv: preset.apiKeyEnv } : undefined;
}

/** A base plus its key (and Azure's Entra token) from the environment, or why it cannot be used. */
function toProviderConfig(id: string, base: ProviderBase, env: Env): ProviderConfig | string {
  const { keyEnv, bearerTokenEnv, ...rest } = base;
  const apiKey = keyEnv === undefined ? undefined : env[keyEnv];
  const bearerToken = bearerTokenEnv === undefined ? undefined : env[bearerTokenEnv];
  if (keyEnv !== undefined && !apiKey && !bearerToken) return `environment variable ${keyEnv} is not set`;
  return {
    id,
    ...upstreamTimeout(env),
    ...rest,
    baseUrl: rest.baseUrl.replace(/\/+$/, ''),
    ...(apiKey ? { apiKey } : {}),
    ...(rest.azure && { azure: bearerToken ? { bearerToken } : {} }),
  };
}

export function configuredProviders(config: CatalogConfig, env: Env): ConfiguredProviders {
  const result: ConfiguredProviders = { providers: [], deployments: [], skipped: [] };
  const add = (id: string, base: ProviderBase) => {
    const made = toProviderConfig(id, base, env);
    if (typeof made === 'string') result.skipped.push({ id, reason: made });
    else result.providers.push(made);
  };
  for (const [id, provider] of Object.entries(config.providers)) add(id, fileProviderBase(id, provider, env));
  for (const [id, preset] of Object.entries(PROVIDER_PRESETS)) {
    // A hosted preset is on once its key is set; a local one once the file names it.
    if ('apiKeyEnv' in preset && env[preset.apiKeyEnv] && !config.providers[id]) add(id, { kind: 'openai-compatible', baseUrl: presetBaseUrl(preset, env), keyEnv: preset.apiKeyEnv });
  }
  for (const [id, native] of Object.entries(NATIVE_PROVIDERS)) {
    if (env[native.apiKeyEnv] && !config.providers[id]) add(id, nativeBase(native, env));
  }
  const azure = azureFromEnv(env);
  if (azure && !config.providers.azure) add('azure', azure);
  if (bedrockConfiguredInEnv(env) && !config.providers.bedrock) {
    const made = bedrockProviderConfig('bedrock', {}, env);
    if (typeof made === 'string') result.skipped.push({ id: 'bedrock', reason: made });
    else result.providers.push(made);
  }
  for (const [modelId, model] of Object.entries(config.models)) {
    if (model.deployments && !model.disabled) addDeployments(result, modelId, model.deployments, config, env);
  }
  return result;
}

/** Providers whose deployments take their credentials, region and endpoint from the environment in their own way. */
const CLOUD_DEPLOYMENTS: ReadonlyMap<string, typeof vertexProviderConfig> = new Map([
  ['vertex', vertexProviderConfig],
  ['bedrock', bedrockProviderConfig],
]);

function addDeployments(result: ConfiguredProviders, modelId: string, deployments: readonly DeploymentConfig[], config: CatalogConfig, env: Env): void {
  const labels = deploymentLabels(deployments);
  deployments.forEach((deployment, index) => {
    const id = deploymentAdapterKey(modelId, labels[index] ?? deployment.provider);
    const cloud = CLOUD_DEPLOYMENTS.get(deployment.provider);
    if (cloud && !config.providers[deployment.provider]) {
      const made = cloud(id, { keyEnv: deployment.apiKeyEnv, region: deployment.region, baseUrl: deployment.baseUrl }, env);
      if (typeof made === 'string') result.skipped.push({ id, reason: made });
      else result.deployments.push(made);
      return;
    }
    const base = providerBase(deployment.provider, config, env);
    if (!base) {
      result.skipped.push({ id, reason: `provider ${deployment.provider} is not configured` });
      return;
    }
    const made = toProviderConfig(id, { ...base, ...(deployment.baseUrl && { baseUrl: deployment.baseUrl }), ...(deployment.apiKeyEnv && { keyEnv: deployment.apiKeyEnv }) }, env);
    if (typeof made === 'string') result.skipped.push({ id, reason: made });
    else result.deployments.push(made);
  });
}
