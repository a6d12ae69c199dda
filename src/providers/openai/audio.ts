/**
 * Audio endpoints. Speech streams the upstream bytes straight through. Transcription and
 * translation go as multipart with every form field (response_format included) passed
 * verbatim, and the answer is returned as the upstream sent it; we only peek into JSON
 * answers for what billing needs: the audio duration (`verbose_json`'s `duration`, or
 * the `usage: {type: 'duration', seconds}` newer models return) or token usage.
 */
import type { CallOptions, ProviderConfig, SpeechRequest, SpeechResponse, TranscriptionRequest, TranscriptionResponse } from '../adapter.ts';
import { FormData, postMultipart, postStream } from '../http/upstream-client.ts';
import { openAICall } from './openai-call.ts';
import { OpenAITranscriptionJsonSchema } from './openai-wire-schemas.ts';

export async function createSpeech(config: ProviderConfig, request: SpeechRequest, options: CallOptions): Promise<SpeechResponse> {
  const body = { ...request.params, model: request.model, input: request.input, voice: request.voice };
  const response = await postStream(config, { body, accept: '*/*', ...openAICall(config, '/audio/speech', options.signal) });
  return { contentType: response.headers['content-type'] ?? 'audio/mpeg', body: response.body };
}

export async function createTranscription(config: ProviderConfig, request: TranscriptionRequest, options: CallOptions): Promise<TranscriptionResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(request.fields)) {
    if (name === 'model' || name === 'file') continue;
    for (const one of Array.isArray(value) ? value : [value]) form.append(name, one);
  }
  form.set('model', request.model);
  form.set('file', new Blob([request.file.data], { type: request.file.contentType }), request.file.filename);
  const path = request.task === 'translation' ? '/audio/translations' : '/audio/transcriptions';
  const response = await postMultipart(config, { form, ...openAICall(config, path, options.signal) });
  const contentType = response.headers['content-type'] ?? 'application/json';
  return { contentType, body: response.body, ...readBillingFacts(contentType, response.body) };
}

function readBillingFacts(contentType: string, body: Buffer): Pick<TranscriptionResponse, 'durationSeconds' | 'usage'> {
  if (!contentType.includes('json')) return { durationSeconds: undefined };
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return { durationSeconds: undefined };
  }
  const parsed = OpenAITranscriptionJsonSchema.safeParse(json);
  if (!parsed.success) return { durationSeconds: undefined };
  const { duration, usage } = parsed.data;
  const durationSeconds = duration ?? (usage?.type === 'duration' ? usage.seconds : undefined);
  return {
    durationSeconds,
    ...(usage?.type === 'tokens' ? { usage: { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 } } : {}),
  };
}
