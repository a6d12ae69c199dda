/**
 * Embeddings, images, moderations and audio of the fake OpenAI upstream (see
 * fake-openai-upstream.ts). Pure functions from a parsed request body to the wire answer;
 * every value is derived from the input so tests can predict it.
 */
import { z } from 'zod';

const MultipartBodySchema = z.object({
  fields: z.record(z.string(), z.string()),
  files: z.array(z.object({ field: z.string(), filename: z.string(), size: z.number() }).loose()),
});

type Json = Record<string, unknown>;

const EmbeddingBodySchema = z
  .object({
    model: z.string(),
    input: z.union([z.string(), z.array(z.string())]),
    dimensions: z.number().int().positive().nullish(),
    encoding_format: z.enum(['float', 'base64']).nullish(),
  })
  .loose();

/**
 * Vector i of an input has `dimensions` (default 4) components; component k is
 * `((code of character k mod length) mod 10) / 10`, so equal texts get equal vectors.
 * `embed`, when given, makes the vectors instead (the upstream's `embeddings` option).
 * `encoding_format: base64` (the openai SDK's default) returns little-endian float32 bytes.
 */
export function handleEmbeddings(body: unknown, embed?: (text: string) => number[]): Json {
  const request = EmbeddingBodySchema.parse(body);
  const inputs = typeof request.input === 'string' ? [request.input] : request.input;
  const dimensions = request.dimensions ?? 4;
  const data = inputs.map((text, index) => {
    const vector = embed ? embed(text) : Array.from({ length: dimensions }, (_, k) => (text.length === 0 ? 0 : (text.charCodeAt(k % text.length) % 10) / 10));
    const embedding = request.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const promptTokens = Math.ceil(inputs.reduce((total, text) => total + text.length, 0) / 4);
  return { object: 'list', data, model: request.model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } };
}

const ImageBodySchema = z.object({ model: z.string().nullish(), prompt: z.string(), n: z.number().nullish(), response_format: z.string().nullish() }).loose();

/** `gpt-image*` models answer in base64 with token usage (1 input token per prompt word, 100 output per image); others with URLs. */
export function handleImages(body: unknown): Json {
  const request = ImageBodySchema.parse(body);
  const count = request.n ?? 1;
  const tokenModel = (request.model ?? '').startsWith('gpt-image');
  const base64 = tokenModel || request.response_format === 'b64_json';
  const data = Array.from({ length: count }, (_, index) =>
    base64 ? { b64_json: Buffer.from(`fake-image-${index}:${request.prompt}`).toString('base64') } : { url: `https://images.fake.test/${index}.png`, revised_prompt: `A picture of ${request.prompt}` },
  );
  if (!tokenModel) return { created: 1_700_000_000, data };
  const inputTokens = request.prompt.split(/\s+/).filter(Boolean).length;
  return {
    created: 1_700_000_000,
    data,
    background: 'opaque',
    output_format: 'png',
    quality: 'low',
    size: '1024x1024',
    usage: {
      input_tokens: inputTokens,
      output_tokens: 100 * count,
      total_tokens: inputTokens + 100 * count,
      input_tokens_details: { text_tokens: inputTokens, image_tokens: 0 },
    },
  };
}

const CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/instructions',
  'self-harm/intent',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;

/** One result per text input; flagged for `violence` exactly when the text contains "attack". */
export function handleModerations(body: unknown, sequence: number): Json {
  const request = z.object({ model: z.string().nullish(), input: z.unknown() }).loose().parse(body);
  let inputs: unknown[] = [];
  if (typeof request.input === 'string') inputs = [request.input];
  else if (Array.isArray(request.input)) inputs = request.input;
  const results = inputs.map((input: unknown) => {
    const text = typeof input === 'string' ? input : JSON.stringify(input);
    const violent = text.toLowerCase().includes('attack');
    const categories = Object.fromEntries(CATEGORIES.map((name) => [name, name === 'violence' && violent]));
    const scores = Object.fromEntries(CATEGORIES.map((name) => [name, name === 'violence' && violent ? 0.9 : 0.0001]));
    const appliedTypes = Object.fromEntries(CATEGORIES.map((name) => [name, ['text']]));
    return { flagged: violent, categories, category_scores: scores, category_applied_input_types: appliedTypes };
  });
  return { id: `modr-fake-${sequence}`, model: request.model ?? 'omni-moderation-latest', results };
}

const SPEECH_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/** The "audio" is `FAKEAUDIO:<voice>:<input>` in UTF-8, sent in 4 chunks; a custom voice (`{ id }`) is named by its id. */
export function handleSpeech(body: unknown): { contentType: string; chunks: Buffer[] } {
  const request = z
    .object({ input: z.string(), voice: z.union([z.string(), z.object({ id: z.string() })]), response_format: z.string().nullish() })
    .loose()
    .parse(body);
  const audio = Buffer.from(`FAKEAUDIO:${typeof request.voice === 'string' ? request.voice : request.voice.id}:${request.input}`);
  const size = Math.ceil(audio.length / 4);
  const chunks = [0, 1, 2, 3].map((part) => audio.subarray(part * size, (part + 1) * size)).filter((chunk) => chunk.length > 0);
  return { contentType: SPEECH_TYPES[request.response_format ?? 'mp3'] ?? 'audio/mpeg', chunks };
}

/**
 * Text is `Fake transcript of <filename>.`; duration is file bytes / 32000 (16 kHz 16-bit
 * mono). `json` answers carry `usage` as `{type: 'duration', seconds: ceil(duration)}` for
 * whisper models and as tokens for `gpt-4o*` models, like the real API; `verbose_json`
 * adds `duration`; `text`, `srt` and `vtt` are plain text.
 */
export function handleTranscription(body: unknown, task: 'transcribe' | 'translate'): { status: number; contentType: string; body: string } {
  const parsed = MultipartBodySchema.safeParse(body);
  const multipart = parsed.success ? parsed.data : { fields: {}, files: [] };
  const file = multipart.files.find((candidate) => candidate.field === 'file');
  const model = multipart.fields['model'];
  if (file === undefined || model === undefined) {
    const error = { error: { message: 'file and model are required', type: 'invalid_request_error', param: 'file', code: null } };
    return { status: 400, contentType: 'application/json', body: JSON.stringify(error) };
  }
  const text = `Fake transcript of ${file.filename}.`;
  const duration = Math.round((file.size / 32_000) * 100) / 100;
  const format = multipart.fields['response_format'] ?? 'json';
  const usage = model.startsWith('gpt-4o')
    ? { type: 'tokens', input_tokens: Math.ceil(file.size / 1000), output_tokens: 4, total_tokens: Math.ceil(file.size / 1000) + 4 }
    : { type: 'duration', seconds: Math.ceil(duration) };
  switch (format) {
    case 'text':
      return { status: 200, contentType: 'text/plain; charset=utf-8', body: `${text}\n` };
    case 'srt':
      return { status: 200, contentType: 'text/plain; charset=utf-8', body: `1\n00:00:00,000 --> 00:00:01,000\n${text}\n\n` };
    case 'vtt':
      return { status: 200, contentType: 'text/plain; charset=utf-8', body: `WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n${text}\n\n` };
    case 'verbose_json':
      return {
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          task,
          language: 'english',
          duration,
          text,
          segments: [{ id: 0, seek: 0, start: 0, end: duration, text, tokens: [1], temperature: 0, avg_logprob: -0.1, compression_ratio: 1, no_speech_prob: 0 }],
          usage,
        }),
      };
    default:
      return { status: 200, contentType: 'application/json', body: JSON.stringify({ text, usage }) };
  }
}
