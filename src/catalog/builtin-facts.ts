/**
 * BUILT-IN TABLE — facts the published price data (@pydantic/genai-prices) does not
 * carry: which of its entries are real, callable chat-completions models, each
 * model's capabilities and max output tokens, per-image / per-character /
 * per-second prices, media parameter schemas, and the few OpenAI media models it
 * does not list at all (dall-e-*, tts-1*, omni-moderation-*). Values follow the
 * providers' public model pages and price lists; every entry can be overridden per
 * model in the catalog config file (`models:` section).
 *
 * Prices here use the catalog's units: integer µUSD per million units, µUSD per image.
 */
import { DALL_E_2_PARAMS, DALL_E_3_PARAMS, GPT_IMAGE_PARAMS, GPT_TRANSCRIBE_PARAMS, GPT_TTS_PARAMS, TTS_PARAMS, WHISPER_PARAMS } from './media-schemas.ts';
import type { PublishedProviderId } from './published-prices.ts';
import type { Capability, JsonSchemaObject, ModelPrices } from './types.ts';

export type ModelFacts = {
  capabilities: readonly Capability[];
  contextLength?: number;
  maxOutputTokens?: number;
  /** Merged over the published prices field by field. */
  prices?: ModelPrices;
  mediaParamsSchema?: JsonSchemaObject;
};

/** First rule whose globs match the upstream name wins. */
export type FactRule = { match: readonly string[]; facts: ModelFacts };

export type ExtraModel = {
  name: string;
  facts: ModelFacts;
  /** Borrow token prices from the published entry that matches this name, if any. */
  pricesFromPublished?: boolean;
};

export type ProviderFacts = {
  /** Published names to keep (globs); everything else is dropped. */
  include: readonly string[];
  /** Published names to drop, with the reason kept next to them for reviewers. */
  exclude: ReadonlyArray<{ match: readonly string[]; reason: string }>;
  /** Published ids that are not accepted upstream as-is. */
  upstreamNames: Readonly<Record<string, string>>;
  /** Published ids that are price groups rather than names, as the catalog and upstream name them; rules match the published id. */
  catalogName?: (publishedName: string) => string;
  rules: readonly FactRule[];
  extras: readonly ExtraModel[];
};

const CHAT: readonly Capability[] = ['chat', 'tools', 'json_output'];
const CHAT_VISION: readonly Capability[] = ['chat', 'tools', 'vision', 'json_output'];
const CHAT_REASONING: readonly Capability[] = ['chat', 'tools', 'vision', 'reasoning', 'json_output'];

const OPENAI: ProviderFacts = {
  include: ['*'],
  exclude: [
    { match: ['ft:*', '*.ft-*', '*:*'], reason: 'fine-tune and variant price buckets, not model names' },
    { match: ['moderation'], reason: 'price bucket; the real moderation models are extras below' },
    {
      match: ['ada', 'babbage', 'curie', 'davinci', 'text-davinci-*', 'gpt-3.5-turbo-instruct', 'gpt-3.5-0301'],
      reason: 'legacy completions models, not on /chat/completions',
    },
    {
      match: ['gpt-4-32k', 'gpt-4-vision-preview', 'gpt-3.5-turbo-0613', 'gpt-3.5-turbo-16k', 'gpt-4.5-preview'],
      reason: 'retired upstream',
    },
    {
      match: ['computer-use*', '*codex*', '*deep-research*', '*-pro', '*-pro-*'],
      reason: 'Responses-API-only upstream; the openai adapter speaks chat completions',
    },
    { match: ['*realtime*'], reason: 'Realtime (WebSocket) API only' },
    { match: ['gpt-oss-*'], reason: 'open-weight models OpenAI does not serve; use an openai-compatible provider' },
    { match: ['gpt-5*-image*'], reason: 'router listings, not OpenAI API model names' },
  ],
  upstreamNames: {},
  rules: [
    { match: ['text-embedding-*'], facts: { capabilities: ['embeddings'] } },
    { match: ['*moderation*'], facts: { capabilities: ['moderation'] } },
    {
      // Per-image list prices for when the response carries no token usage.
      match: ['gpt-image-1'],
      facts: {
        capabilities: ['image_generation'],
        mediaParamsSchema: GPT_IMAGE_PARAMS,
        prices: {
          perImage: 250_000,
          imageVariants: {
            'low/1024x1024': 11_000,
            'low/1024x1536': 16_000,
            'low/1536x1024': 16_000,
            'medium/1024x1024': 42_000,
            'medium/1024x1536': 63_000,
            'medium/1536x1024': 63_000,
            'high/1024x1024': 167_000,
            'high/1024x1536': 250_000,
            'high/1536x1024': 250_000,
          },
        },
      },
    },
    {
      match: ['gpt-image-1-mini'],
      facts: {
        capabilities: ['image_generation'],
        mediaParamsSchema: GPT_IMAGE_PARAMS,
        prices: {
          perImage: 52_000,
          imageVariants: {
            'low/1024x1024': 5_000,
            'low/1024x1536': 6_000,
            'low/1536x1024': 6_000,
            'medium/1024x1024': 11_000,
            'medium/1024x1536': 15_000,
            'medium/1536x1024': 15_000,
            'high/1024x1024': 36_000,
            'high/1024x1536': 52_000,
            'high/1536x1024': 52_000,
          },
        },
      },
    },
    { match: ['gpt-image-*'], facts: { capabilities: ['image_generation'], mediaParamsSchema: GPT_IMAGE_PARAMS } },
    {
      // OpenAI quotes gpt-4o-mini-tts at ~$0.015/minute of audio and bills audio
      // tokens we never see; this per-character estimate matches tts-1.
      match: ['gpt-4o-mini-tts'],
      facts: { capabilities: ['audio_speech'], mediaParamsSchema: GPT_TTS_PARAMS, prices: { charactersPerMillion: 15_000_000 } },
    },
    { match: ['whisper-*'], facts: { capabilities: ['audio_transcription'], mediaParamsSchema: WHISPER_PARAMS } },
    {
      // Per-minute estimates OpenAI publishes ($0.006 / $0.003), used when upstream reports no tokens.
      match: ['gpt-4o-transcribe*'],
      facts: { capabilities: ['audio_transcription'], mediaParamsSchema: GPT_TRANSCRIBE_PARAMS, prices: { audioSecondsPerMillion: 100_000_000 } },
    },
    {
      match: ['gpt-4o-mini-transcribe*'],
      facts: { capabilities: ['audio_transcription'], mediaParamsSchema: GPT_TRANSCRIBE_PARAMS, prices: { audioSecondsPerMillion: 50_000_000 } },
    },
    { match: ['*transcribe*'], facts: { capabilities: ['audio_transcription'], mediaParamsSchema: GPT_TRANSCRIBE_PARAMS } },
    { match: ['*search-preview*'], facts: { capabilities: ['chat', 'json_output'], maxOutputTokens: 16_384 } },
    { match: ['o1-mini', 'o1-preview'], facts: { capabilities: ['chat', 'reasoning'], maxOutputTokens: 32_768 } },
    { match: ['o3-mini'], facts: { capabilities: ['chat', 'tools', 'reasoning', 'json_output'], maxOutputTokens: 100_000 } },
    { match: ['o1', 'o3', 'o4-mini'], facts: { capabilities: CHAT_REASONING, maxOutputTokens: 100_000 } },
    { match: ['gpt-5*', 'gpt-6*'], facts: { capabilities: CHAT_REASONING, maxOutputTokens: 128_000 } },
    { match: ['gpt-4.1*'], facts: { capabilities: CHAT_VISION, maxOutputTokens: 32_768 } },
    { match: ['chatgpt-4o-latest'], facts: { capabilities: ['chat', 'vision', 'json_output'], maxOutputTokens: 16_384 } },
    { match: ['gpt-4o-*audio*', 'gpt-audio*'], facts: { capabilities: CHAT, maxOutputTokens: 16_384 } },
    { match: ['gpt-4o*'], facts: { capabilities: CHAT_VISION, maxOutputTokens: 16_384 } },
    { match: ['gpt-4-turbo*'], facts: { capabilities: CHAT_VISION, maxOutputTokens: 4_096 } },
    { match: ['gpt-4'], facts: { capabilities: ['chat', 'tools'], maxOutputTokens: 8_192 } },
    { match: ['gpt-3.5-turbo*'], facts: { capabilities: CHAT, maxOutputTokens: 4_096 } },
    { match: ['*'], facts: { capabilities: CHAT } },
  ],
  extras: [
    {
      name: 'dall-e-3',
      facts: {
        capabilities: ['image_generation'],
        mediaParamsSchema: DALL_E_3_PARAMS,
        prices: {
          perImage: 120_000,
          imageVariants: {
            'standard/1024x1024': 40_000,
            'standard/1792x1024': 80_000,
            'standard/1024x1792': 80_000,
            'hd/1024x1024': 80_000,
            'hd/1792x1024': 120_000,
            'hd/1024x1792': 120_000,
          },
        },
      },
    },
    {
      name: 'dall-e-2',
      facts: {
        capabilities: ['image_generation'],
        mediaParamsSchema: DALL_E_2_PARAMS,
        prices: { perImage: 20_000, imageVariants: { '256x256': 16_000, '512x512': 18_000, '1024x1024': 20_000 } },
      },
    },
    {
      name: 'tts-1',
      facts: { capabilities: ['audio_speech'], mediaParamsSchema: TTS_PARAMS, prices: { charactersPerMillion: 15_000_000 } },
    },
    {
      name: 'tts-1-hd',
      facts: { capabilities: ['audio_speech'], mediaParamsSchema: TTS_PARAMS, prices: { charactersPerMillion: 30_000_000 } },
    },
    // Moderation is free upstream; the published "moderation" bucket confirms it.
    { name: 'omni-moderation-latest', pricesFromPublished: true, facts: { capabilities: ['moderation'], prices: { inputPerMillion: 0 } } },
    { name: 'text-moderation-latest', pricesFromPublished: true, facts: { capabilities: ['moderation'], prices: { inputPerMillion: 0 } } },
  ],
};

const ANTHROPIC: ProviderFacts = {
  include: ['claude-*'],
  exclude: [
    {
      match: ['claude-v1', 'claude-2', 'claude-3-sonnet', 'claude-3-5-sonnet', 'claude-3-opus-latest'],
      reason: 'retired upstream',
    },
  ],
  // The published id is a family name; the API only accepts the dated snapshot.
  upstreamNames: { 'claude-3-haiku': 'claude-3-haiku-20240307' },
  rules: [
    { match: ['claude-3-haiku*', 'claude-3-opus*'], facts: { capabilities: ['chat', 'tools', 'vision'], maxOutputTokens: 4_096 } },
    { match: ['claude-3-5-haiku*'], facts: { capabilities: ['chat', 'tools'], maxOutputTokens: 8_192 } },
    { match: ['claude-opus-4-0*', 'claude-opus-4-1*'], facts: { capabilities: ['chat', 'tools', 'vision', 'reasoning'], maxOutputTokens: 32_000 } },
    { match: ['claude-*'], facts: { capabilities: ['chat', 'tools', 'vision', 'reasoning'], maxOutputTokens: 64_000 } },
  ],
  extras: [],
};

const GOOGLE: ProviderFacts = {
  include: ['gemini-*'],
  exclude: [
    {
      match: ['gemini-pro', 'gemini-1.0-*', 'gemini-1.5-*', 'gemini-flash-1.5*', 'gemini-pro-1.5'],
      reason: 'retired upstream, or router names that the Gemini API does not accept',
    },
    { match: ['*-tts', '*live*'], reason: 'speech and Live API models, not generateContent chat' },
    { match: ['*omni*'], reason: 'video-output preview, not a chat model' },
    {
      match: ['*-image*'],
      reason: 'image output: the canonical chat types carry no image parts, and Usage cannot price image tokens apart',
    },
  ],
  upstreamNames: {},
  rules: [
    // gemini-embedding-001 takes at most 2,048 input tokens per text.
    { match: ['gemini-embedding-*'], facts: { capabilities: ['embeddings'], contextLength: 2_048 } },
    { match: ['gemini-2.0-flash*'], facts: { capabilities: CHAT_VISION, contextLength: 1_048_576, maxOutputTokens: 8_192 } },
    { match: ['gemini-*'], facts: { capabilities: CHAT_REASONING, contextLength: 1_048_576, maxOutputTokens: 65_536 } },
  ],
  extras: [],
};

const CLAUDE: readonly Capability[] = ['chat', 'tools', 'vision', 'reasoning'];

/**
 * Amazon Bedrock through Converse. Names are Bedrock model ids (`amazon.nova-pro-v1:0`);
 * `global.…` ids are Bedrock's global inference profiles. The price data groups a model's
 * regional profiles (`us.…`, `eu.…`) and its base id as `regional.…`: the catalog lists the
 * base id, and a config's `upstream_name` picks the profile a region needs.
 */
const AWS: ProviderFacts = {
  include: ['*'],
  exclude: [
    { match: ['*sonic*'], reason: 'speech-to-speech models on a bidirectional stream, not Converse' },
    { match: ['*embed*'], reason: 'embedding models, reached through InvokeModel, not Converse' },
    { match: ['*titan-text-*'], reason: 'legacy text models without Converse tool use or system prompts' },
  ],
  upstreamNames: {},
  catalogName: (name) => (name.startsWith('regional.') ? name.slice('regional.'.length) : name),
  rules: [
    { match: ['*anthropic.claude-3-haiku*', '*anthropic.claude-3-opus*', '*anthropic.claude-3-sonnet*'], facts: { capabilities: ['chat', 'tools', 'vision'], maxOutputTokens: 4_096 } },
    { match: ['*anthropic.claude-3-5-haiku*'], facts: { capabilities: ['chat', 'tools'], maxOutputTokens: 8_192 } },
    { match: ['*anthropic.claude-3-5-sonnet*'], facts: { capabilities: ['chat', 'tools', 'vision'], maxOutputTokens: 8_192 } },
    { match: ['*anthropic.claude-opus-4-2025*', '*anthropic.claude-opus-4-1*'], facts: { capabilities: CLAUDE, maxOutputTokens: 32_000 } },
    { match: ['*anthropic.claude-*'], facts: { capabilities: CLAUDE, maxOutputTokens: 64_000 } },
    { match: ['*amazon.nova-micro*'], facts: { capabilities: ['chat', 'tools'], maxOutputTokens: 10_000 } },
    { match: ['*amazon.nova-*'], facts: { capabilities: ['chat', 'tools', 'vision'], maxOutputTokens: 10_000 } },
    { match: ['meta.llama3-2-11b*', 'meta.llama3-2-90b*', 'meta.llama4-*', 'mistral.pixtral*', 'qwen.qwen3-vl*', 'google.gemma-3-*'], facts: { capabilities: ['chat', 'tools', 'vision'] } },
    { match: ['deepseek.r1*'], facts: { capabilities: ['chat', 'reasoning'] } },
    { match: ['*'], facts: { capabilities: ['chat', 'tools'] } },
  ],
  extras: [],
};

/** The price data's entries named as Cohere's API takes them, where the entry is a family rather than a model name. */
const COHERE_NAMES: Readonly<Record<string, string>> = { 'command-a': 'command-a-03-2025', 'command-r7b': 'command-r7b-12-2024' };

/** Cohere's Embed 3 family, which the price data does not list: $0.10 per million input tokens on Cohere's price list, 512 tokens a text. */
const COHERE_EMBED_3: ModelFacts = { capabilities: ['embeddings'], contextLength: 512, prices: { inputPerMillion: 100_000 } };

/** Cohere through its v2 Chat and Embed APIs. */
const COHERE: ProviderFacts = {
  include: ['*'],
  exclude: [{ match: ['command', 'command-light*'], reason: 'legacy generation models, retired from the v2 Chat API' }],
  upstreamNames: {},
  catalogName: (name) => COHERE_NAMES[name] ?? name,
  rules: [
    { match: ['embed-*'], facts: { capabilities: ['embeddings'], contextLength: 128_000 } },
    { match: ['command-a*'], facts: { capabilities: CHAT, contextLength: 256_000, maxOutputTokens: 8_000 } },
    { match: ['command-r*'], facts: { capabilities: CHAT, contextLength: 128_000, maxOutputTokens: 4_000 } },
    { match: ['*'], facts: { capabilities: ['chat'] } },
  ],
  extras: [
    { name: 'embed-english-v3.0', facts: COHERE_EMBED_3 },
    { name: 'embed-multilingual-v3.0', facts: COHERE_EMBED_3 },
    { name: 'embed-english-light-v3.0', facts: COHERE_EMBED_3 },
    { name: 'embed-multilingual-light-v3.0', facts: COHERE_EMBED_3 },
  ],
};

/** The price data's Mistral families as Mistral's API names them (its `-latest` aliases, its `open-` names). */
const MISTRAL_NAMES: Readonly<Record<string, string>> = {
  'mistral-large': 'mistral-large-latest',
  codestral: 'codestral-latest',
  'mistral-7b': 'open-mistral-7b',
  'mistral-nemo': 'open-mistral-nemo',
  'mistral-medium-3-1': 'mistral-medium-2508',
  'pixtral-large': 'pixtral-large-latest',
  'pixtral-12b': 'pixtral-12b-latest',
  'magistral-medium': 'magistral-medium-latest',
  'magistral-small': 'magistral-small-latest',
  'mixtral-8x7b': 'open-mixtral-8x7b',
  'mixtral-8x22b-instruct': 'open-mixtral-8x22b',
};

/** Mistral's chat API (mistral-request.ts); names are those its API takes. */
const MISTRAL: ProviderFacts = {
  include: ['*'],
  exclude: [
    { match: ['*:free', '*-instruct-2501', 'mistral-small-3.*-instruct'], reason: 'open-weight listings priced by other hosts, not Mistral API names' },
    { match: ['mistral-ocr-*'], reason: 'the OCR API, not chat' },
    { match: ['voxtral-*'], reason: 'audio models, not on the chat API the adapter speaks' },
  ],
  upstreamNames: {},
  catalogName: (name) => MISTRAL_NAMES[name] ?? name,
  rules: [
    { match: ['mistral-embed'], facts: { capabilities: ['embeddings'] } },
    { match: ['magistral-*'], facts: { capabilities: ['chat', 'tools', 'reasoning', 'json_output'] } },
    { match: ['pixtral-*', 'mistral-medium-*', 'mistral-small-*', 'mistral-large-2512', 'ministral-*-2512'], facts: { capabilities: CHAT_VISION } },
    { match: ['*'], facts: { capabilities: CHAT } },
  ],
  extras: [],
};

export const BUILTIN_FACTS: Readonly<Record<PublishedProviderId, ProviderFacts>> = {
  openai: OPENAI,
  anthropic: ANTHROPIC,
  google: GOOGLE,
  aws: AWS,
  cohere: COHERE,
  mistral: MISTRAL,
};
