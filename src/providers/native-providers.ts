/**
 * Hosted providers with a wire format of their own (Cohere's v2 chat) or an OpenAI-shaped
 * one with rules of its own (Mistral): like the presets, enabled by their key variable
 * alone, their base URL movable by a variable (a proxy, a test's fake).
 */
export type NativeProvider = {
  kind: 'cohere' | 'mistral';
  baseUrl: string;
  baseUrlEnv: string;
  apiKeyEnv: string;
};

export const NATIVE_PROVIDERS = {
  // The origin: the adapter adds `/v2/chat` and `/v2/embed`.
  cohere: { kind: 'cohere', baseUrl: 'https://api.cohere.com', baseUrlEnv: 'COHERE_BASE_URL', apiKeyEnv: 'COHERE_API_KEY' },
  mistral: { kind: 'mistral', baseUrl: 'https://api.mistral.ai/v1', baseUrlEnv: 'MISTRAL_BASE_URL', apiKeyEnv: 'MISTRAL_API_KEY' },
} as const satisfies Record<string, NativeProvider>;

export type NativeProviderId = keyof typeof NATIVE_PROVIDERS;

export const isNativeProviderId = (id: string): id is NativeProviderId => Object.hasOwn(NATIVE_PROVIDERS, id);

export const nativeProviderOf = (id: string): NativeProvider | undefined => (isNativeProviderId(id) ? NATIVE_PROVIDERS[id] : undefined);
