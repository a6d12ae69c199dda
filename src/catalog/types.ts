import type { RoutingSettings } from './deployment-schema.ts';

/**
 * The model catalog's shapes. The pipeline reads a `CatalogModel` on every request
 * (provider, upstream name, prices, capabilities), so everything here is plain,
 * immutable data built once at start-up.
 */

export const CAPABILITIES = ['chat', 'tools', 'vision', 'reasoning', 'json_output', 'embeddings', 'image_generation', 'moderation', 'audio_speech', 'audio_transcription'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export type ProviderKind = 'openai' | 'anthropic' | 'gemini' | 'openai-compatible' | 'bedrock' | 'cohere' | 'mistral';

/** A provider the caller has credentials for; only these contribute models. */
export type CatalogProvider = { id: string; kind: ProviderKind };

/**
 * Token prices that switch when a request's input is long (Anthropic and Gemini
 * long-context pricing): when `inputTokens > aboveInputTokens`, every token of the
 * call is charged at the tier's price. A field absent from a tier keeps the base price.
 */
export type PriceTier = {
  aboveInputTokens: number;
  inputPerMillion?: number;
  outputPerMillion?: number;
  cachedInputPerMillion?: number;
  cacheWritePerMillion?: number;
};

/**
 * Prices in integer micro-USD. Per-token, per-character and per-audio-second prices
 * are fractions of a micro-USD per unit ($0.15 per million tokens is 0.15 µUSD a
 * token), so they are stored per MILLION units: `inputPerMillion: 150_000` means
 * $0.15 per million input tokens. Per-image prices are per single image. Costs are
 * computed from these with BigInt arithmetic (see costs.ts), never floats.
 */
export type ModelPrices = {
  inputPerMillion?: number;
  outputPerMillion?: number;
  /** Input tokens read from the prompt cache; absent → charged as plain input. */
  cachedInputPerMillion?: number;
  /** Input tokens written to the prompt cache; absent → charged as plain input. */
  cacheWritePerMillion?: number;
  /** Audio input tokens (token-billed transcription models). */
  audioInputPerMillion?: number;
  inputTiers?: readonly PriceTier[];
  /**
   * Generated images priced per image: `imageVariants` keyed `quality/size` or `size`;
   * `perImage` is charged for a combination the variants lack, so the built-in table
   * sets it to the dearest variant (an unknown combination never undercharges).
   */
  perImage?: number;
  imageVariants?: Readonly<Record<string, number>>;
  /** Text-to-speech input characters. */
  charactersPerMillion?: number;
  /** Seconds of transcribed audio. */
  audioSecondsPerMillion?: number;
};

/** A JSON Schema object describing a media endpoint's accepted parameters. */
export type JsonSchemaObject = Readonly<Record<string, unknown>>;

export type ModelSource = 'genai-prices' | 'builtin' | 'config';

export type CatalogModel = {
  /** `provider/model`, e.g. `openai/gpt-4o-mini`. */
  id: string;
  /**
   * The listed model this entry stands for. Differs from `id` only for a dated
   * snapshot resolved on the fly (`openai/gpt-4o-2024-08-06` → `openai/gpt-4o`);
   * plans are checked against it.
   */
  canonicalId: string;
  providerId: string;
  providerKind: ProviderKind;
  /** The name sent upstream in the request's `model` field. */
  upstreamName: string;
  displayName: string | undefined;
  capabilities: ReadonlySet<Capability>;
  contextLength: number | undefined;
  maxOutputTokens: number | undefined;
  prices: ModelPrices;
  mediaParamsSchema: JsonSchemaObject | undefined;
  /** Unix seconds, for the OpenAI models list. */
  created: number;
  /** Where the entry's facts came from first (config may still have overridden fields). */
  source: ModelSource;
  /**
   * Whether a dated upstream name is a snapshot of this model at the same price —
   * the published data's own matcher (gpt-4o accepts `gpt-4o-2024-08-06` but not
   * `gpt-4o-2024-05-13`, which is priced differently). Absent: no snapshots.
   */
  acceptsSnapshot: ((upstreamName: string) => boolean) | undefined;
  /** Set only for a model with `deployments:` in the config: calls are routed among them. */
  deployments?: readonly ModelDeployment[];
  routing?: RoutingSettings;
  /** The config's time limits for this model and, on a deployment's `served` model, that deployment's (attempt-limits.ts ranks them). */
  timeouts?: { model?: TimeoutSettings | undefined; deployment?: TimeoutSettings | undefined };
};

/** A model entry's or a deployment's `timeout_ms` and `stream_idle_timeout_ms`. */
export type TimeoutSettings = { firstByteMs?: number | undefined; streamIdleMs?: number | undefined };

/** One deployment of a model, as the router needs it: plain data built with the catalog. */
export type ModelDeployment = {
  /** Unique within the model; names the deployment in `x-junction-provider`, usage rows and metrics. */
  label: string;
  /** The provider id it names in the config (`azure`, `groq`…). */
  provider: string;
  /** The provider registry's key of the adapter that serves it. */
  adapterKey: string;
  weight: number;
  priority: number;
  /** The provider account's requests and tokens per minute, kept before sending; unset: no limit. */
  rpm?: number | undefined;
  tpm?: number | undefined;
  /** The cloud region it names in the config, shown on the console's Models page. */
  region?: string | undefined;
  /** The model as this deployment serves it (provider = label, its wire kind and upstream name): what a served call records. */
  served: CatalogModel;
};

export type Catalog = {
  /** Listed models in a stable order (by id). */
  models: readonly CatalogModel[];
  /** Model ids AND alias names → model, so a lookup is one Map get. */
  lookup: ReadonlyMap<string, CatalogModel>;
  aliases: ReadonlyMap<string, string>;
  /** Plan name → the set of canonical model ids it allows (precomputed from globs). */
  plans: ReadonlyMap<string, ReadonlySet<string>>;
  providers: readonly CatalogProvider[];
  /** Things the build skipped that an operator may want to see in the log. */
  warnings: readonly string[];
};
