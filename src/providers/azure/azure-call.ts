/**
 * Azure OpenAI's addressing: the deployment is in the path
 * (`{base}/openai/deployments/{deployment}/chat/completions`), `api-version` in the query
 * (config.query), and the key in an `api-key` header, or a Microsoft Entra token as a bearer.
 */
import type { CancelSignal } from '../../core/cancel-signal.ts';
import type { ProviderConfig } from '../adapter.ts';
import type { UpstreamCall } from '../http/upstream-client.ts';
import { readOpenAIErrorMessage } from '../openai/openai-error.ts';

export function azureChatCall(config: ProviderConfig, deployment: string, signal: CancelSignal): UpstreamCall {
  return {
    path: `/openai/deployments/${encodeURIComponent(deployment)}/chat/completions`,
    signal,
    headers: azureAuthHeaders(config),
    readErrorMessage: readOpenAIErrorMessage,
  };
}

function azureAuthHeaders(config: ProviderConfig): Record<string, string> {
  if (config.azure?.bearerToken) return { authorization: `Bearer ${config.azure.bearerToken}` };
  return config.apiKey ? { 'api-key': config.apiKey } : {};
}
