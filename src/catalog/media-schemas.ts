/**
 * JSON Schemas of the parameters OpenAI's media endpoints accept per model, served
 * in the models list as `media_params_schema` so a client can render the right
 * controls (size picker, voice list…). Built in because no published price package
 * carries them; values follow OpenAI's API reference. Override per model in config.
 */
import type { JsonSchemaObject } from './types.ts';

const schema = (properties: Record<string, unknown>, required: string[] = []): JsonSchemaObject => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length > 0 ? { required } : {}),
});

const imageCount = (maximum: number) => ({ type: 'integer', minimum: 1, maximum, default: 1 });
const imageResponseFormat = { type: 'string', enum: ['url', 'b64_json'], default: 'url' };

export const DALL_E_3_PARAMS = schema({
  size: { type: 'string', enum: ['1024x1024', '1792x1024', '1024x1792'], default: '1024x1024' },
  quality: { type: 'string', enum: ['standard', 'hd'], default: 'standard' },
  style: { type: 'string', enum: ['vivid', 'natural'], default: 'vivid' },
  n: imageCount(1),
  response_format: imageResponseFormat,
});

export const DALL_E_2_PARAMS = schema({
  size: { type: 'string', enum: ['256x256', '512x512', '1024x1024'], default: '1024x1024' },
  n: imageCount(10),
  response_format: imageResponseFormat,
});

/** gpt-image-* always return base64 and take no `style`/`response_format`. */
export const GPT_IMAGE_PARAMS = schema({
  size: { type: 'string', enum: ['auto', '1024x1024', '1536x1024', '1024x1536'], default: 'auto' },
  quality: { type: 'string', enum: ['auto', 'low', 'medium', 'high'], default: 'auto' },
  background: { type: 'string', enum: ['auto', 'transparent', 'opaque'], default: 'auto' },
  output_format: { type: 'string', enum: ['png', 'jpeg', 'webp'], default: 'png' },
  output_compression: { type: 'integer', minimum: 0, maximum: 100 },
  moderation: { type: 'string', enum: ['auto', 'low'], default: 'auto' },
  n: imageCount(10),
});

const TTS_VOICES = ['alloy', 'ash', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer'];
const speechResponseFormat = { type: 'string', enum: ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'], default: 'mp3' };

export const TTS_PARAMS = schema(
  {
    voice: { type: 'string', enum: TTS_VOICES },
    speed: { type: 'number', minimum: 0.25, maximum: 4, default: 1 },
    response_format: speechResponseFormat,
  },
  ['voice'],
);

/** gpt-4o-mini-tts adds voices and steerable `instructions`; it ignores `speed`. */
export const GPT_TTS_PARAMS = schema(
  {
    voice: { type: 'string', enum: [...TTS_VOICES, 'ballad', 'verse', 'marin', 'cedar'] },
    instructions: { type: 'string', maxLength: 4096 },
    response_format: speechResponseFormat,
  },
  ['voice'],
);

const transcriptionCommon = {
  language: { type: 'string', description: 'ISO-639-1 code of the input audio, e.g. "en"', pattern: '^[a-z]{2}$' },
  prompt: { type: 'string' },
  temperature: { type: 'number', minimum: 0, maximum: 1, default: 0 },
};

export const WHISPER_PARAMS = schema({
  ...transcriptionCommon,
  response_format: { type: 'string', enum: ['json', 'text', 'srt', 'verbose_json', 'vtt'], default: 'json' },
  timestamp_granularities: { type: 'array', items: { type: 'string', enum: ['word', 'segment'] }, uniqueItems: true },
});

/** gpt-4o(-mini)-transcribe only answer json or text. */
export const GPT_TRANSCRIBE_PARAMS = schema({
  ...transcriptionCommon,
  response_format: { type: 'string', enum: ['json', 'text'], default: 'json' },
});
