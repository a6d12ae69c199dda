/**
 * Cost of a call in integer micro-USD.
 *
 * Rounding: prices are integer µUSD per million units (or per image), so a call's
 * exact cost is `Σ units × price / 1,000,000` — a rational number. We add the
 * numerators as BigInt and divide ONCE, rounding UP to a whole µUSD: a call is never
 * undercharged, and the overcharge is below 1 µUSD per call. (Rounding each part
 * separately would overcharge up to 1 µUSD per part, and floats would drift.)
 * Worst-case estimates use the same rates and rounding, so for the same usage a
 * reservation is never below the settled cost.
 *
 * A price absent from the catalog counts as 0, except cache reads and writes, which
 * fall back to the plain input price (what providers charge without a cache price).
 */
import { ceilDiv, toSafeNumber } from './money.ts';
import type { CatalogModel, ModelPrices } from './types.ts';
import type { Usage } from '../core/model-types.ts';

const MILLION = 1_000_000n;

/** When neither the request nor the catalog bounds the output, reserve for this many tokens. */
export const FALLBACK_WORST_CASE_OUTPUT_TOKENS = 32_768;
/** gpt-image-1 "high" at 1536×1024 produces 6,240 output tokens, the most of any option. */
export const WORST_CASE_IMAGE_OUTPUT_TOKENS = 6_240;

/** A token/character count as BigInt; negatives and NaN count as 0, fractions round up. */
const units = (value: number | undefined): bigint => (value !== undefined && Number.isFinite(value) && value > 0 ? BigInt(Math.ceil(value)) : 0n);

const rate = (value: number | undefined): bigint => BigInt(value ?? 0);

/** µUSD-per-million numerator → whole µUSD, rounded up. */
const settle = (numerator: bigint): number => toSafeNumber(ceilDiv(numerator, MILLION));

type TokenRates = { input: bigint; output: bigint; cachedInput: bigint; cacheWrite: bigint };

/** Base token rates, replaced by the highest long-context tier the input exceeds. */
const tokenRates = (prices: ModelPrices, inputTokens: bigint): TokenRates => {
  let input = prices.inputPerMillion;
  let output = prices.outputPerMillion;
  let cachedInput = prices.cachedInputPerMillion;
  let cacheWrite = prices.cacheWritePerMillion;
  for (const tier of prices.inputTiers ?? []) {
    if (inputTokens <= BigInt(tier.aboveInputTokens)) continue;
    input = tier.inputPerMillion ?? input;
    output = tier.outputPerMillion ?? output;
    cachedInput = tier.cachedInputPerMillion ?? cachedInput;
    cacheWrite = tier.cacheWritePerMillion ?? cacheWrite;
  }
  return { input: rate(input), output: rate(output), cachedInput: rate(cachedInput ?? input), cacheWrite: rate(cacheWrite ?? input) };
};

/**
 * Chat cost from the canonical Usage: `inputTokens` includes cached and cache-write
 * tokens (each charged at its own rate), `outputTokens` includes reasoning tokens.
 */
export const computeChatCost = (model: CatalogModel, usage: Usage): number => {
  const input = units(usage.inputTokens);
  const cached = minBig(units(usage.cachedInputTokens), input);
  const written = minBig(units(usage.cacheWriteTokens), input - cached);
  const rates = tokenRates(model.prices, input);
  return settle((input - cached - written) * rates.input + cached * rates.cachedInput + written * rates.cacheWrite + units(usage.outputTokens) * rates.output);
};

/**
 * The most a chat call can cost, for reservations: every input token at the dearer
 * of the input and cache-write rates, plus the largest possible output — the
 * request's max tokens capped by the model's, else the model's, else what is left
 * of the context window, else FALLBACK_WORST_CASE_OUTPUT_TOKENS.
 */
export const worstCaseChatCost = (model: CatalogModel, request: { inputTokens: number; maxOutputTokens?: number | undefined }): number => {
  const input = units(request.inputTokens);
  const rates = tokenRates(model.prices, input);
  return settle(input * maxBig(rates.input, rates.cacheWrite) + units(worstCaseOutputTokens(model, request)) * rates.output);
};

const worstCaseOutputTokens = (model: CatalogModel, request: { inputTokens: number; maxOutputTokens?: number | undefined }): number => {
  const modelMax = model.maxOutputTokens;
  if (request.maxOutputTokens !== undefined) return modelMax === undefined ? request.maxOutputTokens : Math.min(request.maxOutputTokens, modelMax);
  if (modelMax !== undefined) return modelMax;
  if (model.contextLength !== undefined) return Math.max(0, model.contextLength - request.inputTokens);
  return FALLBACK_WORST_CASE_OUTPUT_TOKENS;
};

/** Embedding (and moderation) input tokens at the input rate. */
export const computeEmbeddingCost = (model: CatalogModel, inputTokens: number): number => settle(units(inputTokens) * rate(model.prices.inputPerMillion));

export type ImageCostInput = {
  count: number;
  size?: string | undefined;
  quality?: string | undefined;
  /** Token usage the upstream reported (gpt-image-*); billed by tokens when the model has token prices. */
  usage?: { inputTokens: number; outputTokens: number } | undefined;
};

/** Generated images: by reported tokens for token-priced models, else per image for the size/quality asked. */
export const computeImageCost = (model: CatalogModel, input: ImageCostInput): number => {
  const prices = model.prices;
  if (input.usage && prices.outputPerMillion !== undefined) {
    return settle(units(input.usage.inputTokens) * rate(prices.inputPerMillion) + units(input.usage.outputTokens) * rate(prices.outputPerMillion));
  }
  return toSafeNumber(units(input.count) * BigInt(perImagePrice(model, input.size, input.quality)));
};

/** The dearest variant for every image, plus the prompt at the input rate for token-priced models. */
export const worstCaseImageCost = (model: CatalogModel, request: { count: number; promptTokens?: number }): number => {
  const prices = model.prices;
  const perImage = Math.max(prices.perImage ?? 0, ...Object.values(prices.imageVariants ?? {}));
  const byImage = BigInt(perImage) * MILLION;
  const byTokens = BigInt(WORST_CASE_IMAGE_OUTPUT_TOKENS) * rate(prices.outputPerMillion);
  return settle(units(request.count) * maxBig(byImage, byTokens) + units(request.promptTokens) * rate(prices.inputPerMillion));
};

/**
 * Per-image price for a size/quality; missing parameters take the defaults from the
 * model's media_params_schema (dall-e-3 → standard, 1024x1024). A combination the
 * table lacks costs `perImage`, which the built-in table sets to the dearest variant.
 */
export const perImagePrice = (model: CatalogModel, size?: string, quality?: string): number => {
  const variants = model.prices.imageVariants ?? {};
  const chosenSize = size ?? schemaDefault(model, 'size');
  const chosenQuality = quality ?? schemaDefault(model, 'quality');
  const byQuality = chosenQuality !== undefined && chosenSize !== undefined ? variants[`${chosenQuality}/${chosenSize}`] : undefined;
  const bySize = chosenSize !== undefined ? variants[chosenSize] : undefined;
  return byQuality ?? bySize ?? model.prices.perImage ?? 0;
};

/** Text-to-speech: input characters at the per-character rate. */
export const computeSpeechCost = (model: CatalogModel, characters: number): number => settle(units(characters) * rate(model.prices.charactersPerMillion));

/**
 * Transcription: by reported tokens when the model is token-priced (audio input
 * tokens at the audio rate), else by duration — whole milliseconds, rounded up,
 * at the per-second rate.
 */
export const computeTranscriptionCost = (model: CatalogModel, input: { durationSeconds: number; usage?: { inputTokens: number; outputTokens: number } | undefined }): number => {
  const prices = model.prices;
  const inputRate = prices.audioInputPerMillion ?? prices.inputPerMillion;
  if (input.usage && inputRate !== undefined) {
    return settle(units(input.usage.inputTokens) * rate(inputRate) + units(input.usage.outputTokens) * rate(prices.outputPerMillion));
  }
  const milliseconds = units(input.durationSeconds * 1000);
  return toSafeNumber(ceilDiv(milliseconds * rate(prices.audioSecondsPerMillion), 1000n * MILLION));
};

const schemaDefault = (model: CatalogModel, parameter: string): string | undefined => {
  const properties = model.mediaParamsSchema?.['properties'];
  if (typeof properties !== 'object' || properties === null) return undefined;
  const property: unknown = Reflect.get(properties, parameter);
  if (typeof property !== 'object' || property === null) return undefined;
  const fallback: unknown = Reflect.get(property, 'default');
  return typeof fallback === 'string' ? fallback : undefined;
};

const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b);
