import type { CallOptions, ProviderConfig } from '../adapter.ts';
import type { UpstreamCall } from '../http/upstream-client.ts';
import { readGeminiErrorMessage, readGeminiRetryDelay } from './gemini-error.ts';

/** `/models/{model}:{method}`; accepts model names with or without Google's `models/` prefix. */
export function geminiModelPath(model: string, method: string): string {
  const name = model.startsWith('models/') ? model.slice('models/'.length) : model;
  return `/models/${encodeURIComponent(name)}:${method}`;
}

/**
 * The pieces of an upstream call every Gemini endpoint shares. The key goes in the
 * `x-goog-api-key` header rather than `?key=` so it never lands in access logs.
 */
export function geminiCall(config: ProviderConfig, path: string, options: CallOptions): UpstreamCall {
  return {
    path,
    signal: options.signal,
    headers: config.apiKey === undefined ? {} : { 'x-goog-api-key': config.apiKey },
    readErrorMessage: readGeminiErrorMessage,
    readRetryAfter: readGeminiRetryDelay,
  };
}
