/**
 * The per-call options every OpenAI endpoint shares: bearer auth and the OpenAI error
 * reader. Kept apart so the endpoint files do not import the adapter (and vice versa).
 */
import type { ProviderConfig } from '../adapter.ts';
import type { UpstreamCall } from '../http/upstream-client.ts';
import { readOpenAIErrorMessage } from './openai-error.ts';
import type { CancelSignal } from '../../core/cancel-signal.ts';

export function openAICall(config: ProviderConfig, path: string, signal: CancelSignal): UpstreamCall {
  return {
    path,
    signal,
    // Keyless local servers (Ollama, vLLM) get no Authorization at all; Azure sends its
    // `api-key` through config.headers instead.
    headers: config.apiKey === undefined || config.apiKey === '' ? {} : { authorization: `Bearer ${config.apiKey}` },
    readErrorMessage: readOpenAIErrorMessage,
  };
}
