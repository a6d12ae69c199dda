/**
 * OpenAI-compatible providers known by id, so an operator writes a key, not a base URL.
 * Hosted ones are enabled by their key variable alone; local ones (no key) once the config
 * file names them, in `providers:` or in a model's `deployments:`.
 */
export type ProviderPreset = {
  baseUrl: string;
  /** The environment variable that moves the base URL (a proxy, a test's fake). */
  baseUrlEnv: string;
  /** The environment variable holding the key; absent for local servers, which take none. */
  apiKeyEnv?: string;
};

export const PROVIDER_PRESETS = {
  groq: { baseUrl: 'https://api.groq.com/openai/v1', baseUrlEnv: 'GROQ_BASE_URL', apiKeyEnv: 'GROQ_API_KEY' },
  together: { baseUrl: 'https://api.together.xyz/v1', baseUrlEnv: 'TOGETHER_BASE_URL', apiKeyEnv: 'TOGETHER_API_KEY' },
  fireworks: { baseUrl: 'https://api.fireworks.ai/inference/v1', baseUrlEnv: 'FIREWORKS_BASE_URL', apiKeyEnv: 'FIREWORKS_API_KEY' },
  deepseek: { baseUrl: 'https://api.deepseek.com/v1', baseUrlEnv: 'DEEPSEEK_BASE_URL', apiKeyEnv: 'DEEPSEEK_API_KEY' },
  xai: { baseUrl: 'https://api.x.ai/v1', baseUrlEnv: 'XAI_BASE_URL', apiKeyEnv: 'XAI_API_KEY' },
  openrouter: { baseUrl: 'https://openrouter.ai/api/v1', baseUrlEnv: 'OPENROUTER_BASE_URL', apiKeyEnv: 'OPENROUTER_API_KEY' },
  ollama: { baseUrl: 'http://127.0.0.1:11434/v1', baseUrlEnv: 'OLLAMA_BASE_URL' },
  vllm: { baseUrl: 'http://127.0.0.1:8000/v1', baseUrlEnv: 'VLLM_BASE_URL' },
  lmstudio: { baseUrl: 'http://127.0.0.1:1234/v1', baseUrlEnv: 'LMSTUDIO_BASE_URL' },
} as const satisfies Record<string, ProviderPreset>;

export type PresetId = keyof typeof PROVIDER_PRESETS;

export const isPresetId = (id: string): id is PresetId => Object.hasOwn(PROVIDER_PRESETS, id);

export const presetOf = (id: string): ProviderPreset | undefined => (isPresetId(id) ? PROVIDER_PRESETS[id] : undefined);

/** The preset's base URL, moved by its `<ID>_BASE_URL` variable when set. */
export const presetBaseUrl = (preset: ProviderPreset, env: Readonly<Record<string, string | undefined>>): string => env[preset.baseUrlEnv] || preset.baseUrl;
