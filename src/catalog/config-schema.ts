/**
 * The catalog config file (YAML, snake_case), validated strictly: unknown keys are
 * rejected so a typo (`max_output_token`) fails start-up instead of silently doing
 * nothing. Prices are written the way providers publish them — USD per million
 * tokens, USD per image, USD per audio minute — and converted here, exactly, to the
 * catalog's integer µUSD units; a price finer than the catalog can hold is an error.
 */
import { CurrencyRatesSchema } from '../credits/currency-rates.ts';
import { z } from 'zod';
import { scaleDecimal, toSafeNumber } from './money.ts';
import { CAPABILITIES, type ModelPrices, type PriceTier } from './types.ts';
import { isNativeProviderId } from '../providers/native-providers.ts';
import { isPresetId } from '../providers/provider-presets.ts';
import { DeploymentSchema, deploymentLabels, RoutingSchema, TimeoutFieldsSchema, timeoutSettings } from './deployment-schema.ts';

/** USD amount as a YAML number or a decimal string ("0.15"); floats are read via their decimal text. */
const UsdSchema = z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/, 'expected a decimal like "0.15"')]);

/** USD → integer µUSD × 10^extraDigits, rejecting values the integer cannot hold exactly. */
const usdTo = (extraDigits: number, divisor = 1n) =>
  UsdSchema.transform((usd, context) => {
    const scaled = scaleDecimal(usd, 6 + extraDigits);
    if (!scaled.exact || scaled.value % divisor !== 0n) {
      context.addIssue({ code: 'custom', message: `price ${usd} is finer than the catalog stores exactly` });
      return z.NEVER;
    }
    return toSafeNumber(scaled.value / divisor);
  });

const perMillion = usdTo(0);
const TierSchema = z
  .strictObject({
    above_input_tokens: z.number().int().nonnegative().describe('The tier applies to calls with more input tokens than this.'),
    input: perMillion.optional().describe('USD per million input tokens in this tier.'),
    output: perMillion.optional().describe('USD per million output tokens in this tier.'),
    cached_input: perMillion.optional().describe('USD per million cached input tokens in this tier.'),
    cache_write: perMillion.optional().describe('USD per million tokens written to the cache in this tier.'),
  })
  .transform(
    (tier): PriceTier => ({
      aboveInputTokens: tier.above_input_tokens,
      ...dropUndefined({
        inputPerMillion: tier.input,
        outputPerMillion: tier.output,
        cachedInputPerMillion: tier.cached_input,
        cacheWritePerMillion: tier.cache_write,
      }),
    }),
  );

const PricesSchema = z
  .strictObject({
    input: perMillion.optional().describe('USD per million input tokens.'),
    output: perMillion.optional().describe('USD per million output tokens.'),
    cached_input: perMillion.optional().describe("USD per million input tokens read from the provider's cache."),
    cache_write: perMillion.optional().describe("USD per million input tokens written to the provider's cache."),
    audio_input: perMillion.optional().describe('USD per million audio input tokens.'),
    input_tiers: z.array(TierSchema).optional().describe('Prices that replace the ones above for long inputs.'),
    per_image: usdTo(0).optional().describe('USD per image, when the quality and size are not in `image_variants`.'),
    image_variants: z.record(z.string().min(1), usdTo(0)).optional().describe('USD per image keyed `quality/size` (e.g. `hd/1024x1792`) or `size`.'),
    per_million_characters: perMillion.optional().describe('USD per million input characters (speech).'),
    // Stored as µUSD per million seconds (× 10^6, ÷ 60).
    per_audio_minute: usdTo(6, 60n).optional().describe('USD per minute of audio (transcription, translation).'),
  })
  .transform(
    (prices): ModelPrices =>
      dropUndefined({
        inputPerMillion: prices.input,
        outputPerMillion: prices.output,
        cachedInputPerMillion: prices.cached_input,
        cacheWritePerMillion: prices.cache_write,
        audioInputPerMillion: prices.audio_input,
        inputTiers: prices.input_tiers,
        perImage: prices.per_image,
        imageVariants: prices.image_variants,
        charactersPerMillion: prices.per_million_characters,
        audioSecondsPerMillion: prices.per_audio_minute,
      }),
  );

const ModelFieldsSchema = {
  display_name: z.string().min(1).optional().describe('The name the models list shows.'),
  upstream_name: z.string().min(1).optional().describe('The model name sent to the provider, when it differs from the id (a fine-tune, a deployment).'),
  capabilities: z.array(z.enum(CAPABILITIES)).optional().describe('What the model can do; a call needing another capability is refused.'),
  context_length: z.number().int().positive().optional().describe('Input and output tokens the model holds.'),
  max_output_tokens: z.number().int().positive().optional().describe('The most output tokens one call may ask for; reservations assume it when a call sets no cap.'),
  prices: PricesSchema.optional().describe('What a call costs; a model without prices is free.'),
  media_params_schema: z.record(z.string(), z.unknown()).optional().describe("JSON Schema of a media model's parameters, shown in the models list and the console's Try form."),
  created: z.number().int().nonnegative().optional().describe('Unix seconds shown as `created` in the models list.'),
};

type ModelFieldsInput = {
  display_name?: string | undefined;
  upstream_name?: string | undefined;
  capabilities?: Array<(typeof CAPABILITIES)[number]> | undefined;
  context_length?: number | undefined;
  max_output_tokens?: number | undefined;
  prices?: ModelPrices | undefined;
  media_params_schema?: Record<string, unknown> | undefined;
  created?: number | undefined;
};

const toModelOverride = (fields: ModelFieldsInput) =>
  dropUndefined({
    displayName: fields.display_name,
    upstreamName: fields.upstream_name,
    capabilities: fields.capabilities,
    contextLength: fields.context_length,
    maxOutputTokens: fields.max_output_tokens,
    prices: fields.prices,
    mediaParamsSchema: fields.media_params_schema,
    created: fields.created,
  });

const ModelOverrideSchema = z
  .strictObject({
    ...ModelFieldsSchema,
    disabled: z.boolean().optional().describe('Removes the model from the catalog.'),
    deployments: z.array(DeploymentSchema).min(1).optional().describe('Providers, accounts or regions serving this model; calls are routed among them.'),
    routing: RoutingSchema.optional().describe('How calls are spread over the deployments, and when a failing one is kept out.'),
    ...TimeoutFieldsSchema,
  })
  .transform(({ timeout_ms, stream_idle_timeout_ms, ...fields }) => {
    const timeouts = timeoutSettings({ timeout_ms, stream_idle_timeout_ms });
    return {
      ...toModelOverride(fields),
      disabled: fields.disabled ?? false,
      ...(fields.deployments && { deployments: fields.deployments }),
      ...(fields.routing && { routing: fields.routing }),
      ...(timeouts && { timeouts }),
    };
  });
export type ModelOverride = z.output<typeof ModelOverrideSchema>;

const PROVIDER_ID = /^[a-z0-9][a-z0-9_-]*$/;
export const MODEL_ID = /^[a-z0-9][a-z0-9_-]*\/\S+$/;
/** Names the gateway already gives to env-configured providers. */
export const RESERVED_PROVIDER_IDS = ['openai', 'anthropic', 'google'] as const;

const CompatibleModelSchema = z.union([
  z
    .string()
    .min(1)
    .transform((name) => ({ name, override: toModelOverride({}) })),
  z
    .strictObject({ name: z.string().min(1).describe("The provider's model name; the catalog id is `<provider>/<name>`."), ...ModelFieldsSchema })
    .transform(({ name, ...fields }) => ({ name, override: toModelOverride(fields) })),
]);

const CompatibleProviderSchema = z
  .strictObject({
    kind: z
      .enum(['openai-compatible', 'azure'])
      .default('openai-compatible')
      .describe("The wire format the provider speaks; `azure` is Azure OpenAI's addressing (deployments in the path, `api-version`, `api-key`)."),
    base_url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe("The provider's API root, e.g. `http://localhost:11434/v1` (Azure: `https://<resource>.openai.azure.com`); a preset's when unset."),
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional()
      .describe("The environment variable holding the provider's key (the key never goes in the file); the provider is skipped while it is unset."),
    headers: z.record(z.string(), z.string()).optional().describe("Headers sent with every call (Azure's `api-key`, say)."),
    query: z.record(z.string(), z.string()).optional().describe("Query parameters added to every call (Azure's `api-version`, say)."),
    timeout_ms: z.number().int().positive().optional().describe('Per-attempt wait for the response headers; `JUNCTION_UPSTREAM_TIMEOUT_MS` when unset.'),
    api_version: z.string().min(1).optional().describe('Azure: the `api-version` query parameter (`2024-10-21` when unset).'),
    bearer_token_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional()
      .describe('Azure: the environment variable holding a Microsoft Entra token, sent as a bearer instead of `api-key`.'),
    models: z.array(CompatibleModelSchema).default([]).describe("The provider's models: a name (chat, free), or an object with the fields below."),
  })
  .transform((provider) => ({
    kind: provider.kind,
    baseUrl: provider.base_url,
    apiKeyEnv: provider.api_key_env,
    headers: provider.headers,
    query: provider.query,
    timeoutMs: provider.timeout_ms,
    apiVersion: provider.api_version,
    bearerTokenEnv: provider.bearer_token_env,
    models: provider.models,
  }));
export type CompatibleProviderConfig = z.output<typeof CompatibleProviderSchema>;

const PlanSchema = z.strictObject({ models: z.array(z.string().min(1)).describe("Model ids, aliases or `*` globs the plan's accounts may call.") });

export const CatalogConfigSchema = z
  .strictObject({
    providers: z
      .record(
        z
          .string()
          .regex(PROVIDER_ID, 'provider ids are lowercase letters, digits, "-" and "_"')
          .refine((id) => !(RESERVED_PROVIDER_IDS as readonly string[]).includes(id), {
            message: 'openai, anthropic and google are configured from the environment',
          }),
        CompatibleProviderSchema,
      )
      .default({})
      .describe('OpenAI-compatible servers by provider id; `openai`, `anthropic` and `google` come from the environment.'),
    models: z.record(z.string().regex(MODEL_ID, 'model ids look like provider/model'), ModelOverrideSchema).default({}).describe('Catalog entries to override or add, by `provider/model` id.'),
    aliases: z
      .record(z.string().regex(/^[^/\s]+$/, 'alias names cannot contain "/" or spaces, so they never shadow a model id'), z.string().regex(MODEL_ID, 'an alias points at a provider/model id'))
      .default({})
      .describe('Short names for model ids (`fast: openai/gpt-4o-mini`).'),
    plans: z.record(z.string().min(1), PlanSchema).default({}).describe("Which models each plan's accounts may call; without a `default` plan, `default` allows the whole catalog."),
    currencies: CurrencyRatesSchema.default({}).describe('USD value of one unit of each credit currency (`EUR: 1.08`); `JUNCTION_FX_RATES` wins.'),
  })
  .superRefine((config, context) => {
    for (const [id, provider] of Object.entries(config.providers)) {
      if (provider.baseUrl === undefined && (provider.kind === 'azure' || !isPresetId(id))) {
        context.addIssue({ code: 'custom', path: ['providers', id, 'base_url'], message: `${id} is not a preset provider; give its base_url` });
      }
    }
    for (const [id, model] of Object.entries(config.models)) {
      if (!model.deployments) continue;
      model.deployments.forEach((deployment, index) => {
        if (!isDeploymentProvider(deployment.provider, config.providers)) {
          context.addIssue({ code: 'custom', path: ['models', id, 'deployments', index, 'provider'], message: `unknown provider ${deployment.provider}` });
        }
      });
      const labels = deploymentLabels(model.deployments);
      labels.forEach((label, index) => {
        if (labels.indexOf(label) !== index) context.addIssue({ code: 'custom', path: ['models', id, 'deployments', index, 'name'], message: `deployment name ${label} is used twice` });
      });
    }
  });

/** Providers a deployment may name: the built-in ones, Azure, Vertex AI, Bedrock, Cohere, Mistral, the presets and the file's own. */
export const isDeploymentProvider = (id: string, providers: Readonly<Record<string, unknown>>): boolean =>
  (RESERVED_PROVIDER_IDS as readonly string[]).includes(id) || id === 'azure' || id === 'vertex' || id === 'bedrock' || isNativeProviderId(id) || isPresetId(id) || Object.hasOwn(providers, id);

export type CatalogConfig = z.output<typeof CatalogConfigSchema>;
export type CatalogConfigInput = z.input<typeof CatalogConfigSchema>;

export const emptyCatalogConfig = (): CatalogConfig => ({ providers: {}, models: {}, aliases: {}, plans: {}, currencies: {} });

/** Removes keys whose value is undefined, so spreading an override never erases a base value. */
function dropUndefined<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
