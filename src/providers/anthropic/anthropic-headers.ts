import type { ProviderConfig } from '../adapter.ts';

export const ANTHROPIC_VERSION = '2023-06-01';

/** Auth and versioning headers; `config.headers` (e.g. `anthropic-beta`) are added by the HTTP client. */
export function anthropicHeaders(config: ProviderConfig): Record<string, string> {
  return {
    'anthropic-version': ANTHROPIC_VERSION,
    ...(config.apiKey === undefined ? {} : { 'x-api-key': config.apiKey }),
  };
}
