/**
 * One entry of `GET /v1/models`: the OpenAI shape (`id, object, created, owned_by`)
 * plus what clients of a gateway need to choose a model — capabilities, context
 * length and prices. Prices are exact decimal USD strings per unit, as OpenRouter
 * serves them (`"0.00000015"` per prompt token), so clients never parse floats
 * that were rounded for display.
 */
import { perImagePrice } from './costs.ts';
import { formatScaled } from './money.ts';
import { CAPABILITIES, type CatalogModel, type JsonSchemaObject } from './types.ts';

export type ModelListPricing = {
  /** USD per input token. */
  prompt?: string;
  /** USD per output token (reasoning included). */
  completion?: string;
  input_cache_read?: string;
  input_cache_write?: string;
  /** USD per audio input token. */
  input_audio?: string;
  /** USD per generated image at the model's default size and quality. */
  image?: string;
  /** USD per generated image by `quality/size` or `size`. */
  image_variants?: Record<string, string>;
  /** USD per input character (text-to-speech). */
  character?: string;
  /** USD per second of audio (transcription). */
  audio_second?: string;
};

export type ModelListEntry = {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  capabilities: string[];
  pricing: ModelListPricing;
  context_length: number | null;
  max_output_tokens: number | null;
  media_params_schema?: JsonSchemaObject;
};

/** µUSD per million units → USD per unit: 10^6 × 10^6 = 12 decimal places. */
const perUnit = (microPerMillion: number | undefined): string | undefined => (microPerMillion === undefined ? undefined : formatScaled(BigInt(microPerMillion), 12));
/** µUSD → USD. */
const usd = (micro: number): string => formatScaled(BigInt(micro), 6);

export const toModelListEntry = (model: CatalogModel): ModelListEntry => {
  const prices = model.prices;
  const pricing: ModelListPricing = {};
  const set = <K extends keyof ModelListPricing>(key: K, value: ModelListPricing[K] | undefined): void => {
    if (value !== undefined) pricing[key] = value;
  };
  set('prompt', perUnit(prices.inputPerMillion));
  set('completion', perUnit(prices.outputPerMillion));
  set('input_cache_read', perUnit(prices.cachedInputPerMillion));
  set('input_cache_write', perUnit(prices.cacheWritePerMillion));
  set('input_audio', perUnit(prices.audioInputPerMillion));
  if (prices.perImage !== undefined || prices.imageVariants !== undefined) {
    set('image', usd(perImagePrice(model)));
    if (prices.imageVariants) {
      set('image_variants', Object.fromEntries(Object.entries(prices.imageVariants).map(([key, micro]) => [key, usd(micro)])));
    }
  }
  set('character', perUnit(prices.charactersPerMillion));
  set('audio_second', perUnit(prices.audioSecondsPerMillion));
  return {
    id: model.id,
    object: 'model',
    created: model.created,
    owned_by: model.providerId,
    // Fixed order, so the list is stable across builds.
    capabilities: CAPABILITIES.filter((capability) => model.capabilities.has(capability)),
    pricing,
    context_length: model.contextLength ?? null,
    max_output_tokens: model.maxOutputTokens ?? null,
    ...(model.mediaParamsSchema ? { media_params_schema: model.mediaParamsSchema } : {}),
  };
};
