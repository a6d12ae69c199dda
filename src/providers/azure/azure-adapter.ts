/**
 * Azure OpenAI speaks OpenAI's chat wire format (requests, answers, streams, tools), so the
 * adapter is OpenAI's with Azure's addressing; only chat is offered through deployments.
 */
import type { ProviderAdapter, ProviderConfig } from '../adapter.ts';
import { createOpenAIAdapter } from '../openai/openai-adapter.ts';
import { azureChatCall } from './azure-call.ts';

/** The api-version Junction sends when the operator names none: a GA version with tools and streamed usage. */
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';

export function createAzureAdapter(config: ProviderConfig): ProviderAdapter {
  const withVersion: ProviderConfig = { ...config, query: { 'api-version': DEFAULT_AZURE_API_VERSION, ...config.query } };
  const openAI = createOpenAIAdapter(withVersion, azureChatCall);
  return { config: withVersion, streamChat: openAI.streamChat, generateChat: openAI.generateChat };
}
