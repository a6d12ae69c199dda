import { request } from 'undici';
import type { ProviderConfig } from '../providers/adapter.ts';

export type CheckResult = { name: string; ok: boolean; detail: string; fix?: string };

/** The cheapest authenticated call each wire format offers: list the models. */
function listModelsRequest(config: ProviderConfig): { url: string; headers: Record<string, string> } {
  const query = new URLSearchParams(config.query ?? {});
  if (config.kind === 'gemini' && config.apiKey) query.set('key', config.apiKey);
  // Cohere's base URL is its origin, and its model list is on v1.
  const url = `${config.baseUrl}${config.kind === 'cohere' ? '/v1/models' : '/models'}${query.size > 0 ? `?${query}` : ''}`;
  const headers: Record<string, string> = { ...(config.headers ?? {}) };
  if (config.kind === 'anthropic') {
    if (config.apiKey) headers['x-api-key'] = config.apiKey;
    headers['anthropic-version'] = '2023-06-01';
  } else if (config.kind !== 'gemini' && config.apiKey) {
    headers.authorization = `Bearer ${config.apiKey}`;
  }
  return { url, headers };
}

/** Calls the provider with its credentials; the key itself never appears in the result. */
export async function checkProvider(config: ProviderConfig, timeoutMs = 10_000): Promise<CheckResult> {
  const name = `provider ${config.id}`;
  // Bedrock's runtime has no cheap read to sign; a refused key shows on the first call as an upstream auth error.
  if (config.kind === 'bedrock') return { name, ok: true, detail: `${config.baseUrl}: requests are signed per call; the credentials are not checked here` };
  const { url, headers } = listModelsRequest(config);
  try {
    const response = await request(url, { method: 'GET', headers, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    await response.body.dump();
    if (response.statusCode === 200) return { name, ok: true, detail: `${config.baseUrl} answered with the key` };
    if (response.statusCode === 401 || response.statusCode === 403) {
      return {
        name,
        ok: false,
        detail: `${config.baseUrl} refused the key (${response.statusCode})`,
        fix: `check the API key of ${config.id} (its environment variable or api_key_env in the config file)`,
      };
    }
    return { name, ok: false, detail: `${config.baseUrl}/models answered ${response.statusCode}`, fix: `check the base URL of ${config.id}` };
  } catch (error) {
    return { name, ok: false, detail: `${config.baseUrl} unreachable: ${(error as Error).message}`, fix: `check the base URL of ${config.id} and that this machine can reach it` };
  }
}
