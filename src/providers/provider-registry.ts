import type { ProviderAdapter, ProviderConfig } from './adapter.ts';
import { createAnthropicAdapter } from './anthropic/anthropic-adapter.ts';
import { createAzureAdapter } from './azure/azure-adapter.ts';
import { createBedrockAdapter } from './bedrock/bedrock-adapter.ts';
import { createCohereAdapter } from './cohere/cohere-adapter.ts';
import { createGeminiAdapter } from './gemini/gemini-adapter.ts';
import { createMistralAdapter } from './mistral/mistral-adapter.ts';
import { createOpenAIAdapter } from './openai/openai-adapter.ts';
import { createVertexAdapter } from './vertex/vertex-adapter.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The built-in providers come from the environment; a provider without an API key
 * contributes nothing. `google` is the provider id for Gemini (model ids `google/…`).
 */
export function providersFromEnv(env: Env): ProviderConfig[] {
  const providers: ProviderConfig[] = [];
  const timeoutMs = env.JUNCTION_UPSTREAM_TIMEOUT_MS ? Number(env.JUNCTION_UPSTREAM_TIMEOUT_MS) : undefined;
  const base = (value: string | undefined, fallback: string) => (value ?? fallback).replace(/\/+$/, '');
  if (env.OPENAI_API_KEY) {
    providers.push({ id: 'openai', kind: 'openai', apiKey: env.OPENAI_API_KEY, baseUrl: base(env.OPENAI_BASE_URL, 'https://api.openai.com/v1'), ...(timeoutMs && { timeoutMs }) });
  }
  if (env.ANTHROPIC_API_KEY) {
    providers.push({ id: 'anthropic', kind: 'anthropic', apiKey: env.ANTHROPIC_API_KEY, baseUrl: base(env.ANTHROPIC_BASE_URL, 'https://api.anthropic.com/v1'), ...(timeoutMs && { timeoutMs }) });
  }
  if (env.GEMINI_API_KEY) {
    providers.push({
      id: 'google',
      kind: 'gemini',
      apiKey: env.GEMINI_API_KEY,
      baseUrl: base(env.GEMINI_BASE_URL, 'https://generativelanguage.googleapis.com/v1beta'),
      ...(timeoutMs && { timeoutMs }),
    });
  }
  return providers;
}

export function createAdapter(config: ProviderConfig): ProviderAdapter {
  if (config.vertex) return createVertexAdapter({ ...config, vertex: config.vertex });
  switch (config.kind) {
    case 'anthropic':
      return createAnthropicAdapter(config);
    case 'gemini':
      return createGeminiAdapter(config);
    case 'bedrock':
      return createBedrockAdapter(config);
    case 'cohere':
      return createCohereAdapter(config);
    case 'mistral':
      return createMistralAdapter(config);
    default:
      return config.azure ? createAzureAdapter(config) : createOpenAIAdapter(config);
  }
}

/** Adapter per provider id, built once at start-up. */
export type ProviderRegistry = ReadonlyMap<string, ProviderAdapter>;

export const buildProviderRegistry = (configs: readonly ProviderConfig[]): ProviderRegistry => new Map(configs.map((config) => [config.id, createAdapter(config)]));
