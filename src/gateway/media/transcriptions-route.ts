import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { computeTranscriptionCost } from '../../catalog/costs.ts';
import { JunctionError } from '../../core/errors.ts';
import { requireKey } from '../../http/auth-hook.ts';
import { parseInput } from '../../http/parse-body.ts';
import { rateLimitHeaders } from '../../pipeline/rate-limiter.ts';
import { requireMethod } from '../../pipeline/unary-pipeline.ts';
import { callContextFrom } from '../call-context-from-request.ts';
import { checkMediaParams } from './check-media-params.ts';
import { AUDIO_FORM_LIMITS, readAudioForm, refuseOversizedUpload } from './read-audio-form.ts';
import type { MediaRouteDeps } from './register-media-routes.ts';
import { renderTranscript, TRANSCRIPT_FORMATS, upstreamFormat } from './render-transcript.ts';

// Importing @fastify/multipart adds `multipartOptions` to FastifyContextConfig, which
// makes it a weak type: route configs holding only `errorFormat` (messages, gemini)
// then fail to type-check. The field belongs next to sendError in src/http/error-handler.ts;
// declared here until it moves there.
declare module 'fastify' {
  interface FastifyContextConfig {
    errorFormat?: 'openai' | 'anthropic' | 'google';
  }
}

/**
 * Before the call only the file size is known, so the reservation assumes the lowest
 * bitrate speech is plausibly stored at (8 kbit/s: low-rate Opus/AMR), capped at four
 * hours. Compressed speech is nearly always above it, so the bound is rarely beaten;
 * if it is, the measured duration is still billed in full (the settlement may exceed a
 * reservation, it is only the lease that is bounded by it).
 */
const LOWEST_BITRATE_BITS_PER_SECOND = 8_000;
const MAX_BOUND_SECONDS = 4 * 60 * 60;
export const durationBoundSeconds = (bytes: number): number => Math.min((bytes * 8) / LOWEST_BITRATE_BITS_PER_SECOND, MAX_BOUND_SECONDS);

export const TranscriptionFormSchema = z.strictObject({
  model: z.string().min(1),
  language: z.string().optional(),
  prompt: z.string().optional(),
  response_format: z.enum(TRANSCRIPT_FORMATS).optional(),
  temperature: z.coerce.number().optional(),
  timestamp_granularities: z
    .array(z.enum(['word', 'segment']))
    .min(1)
    .max(2)
    .optional(),
  stream: z.enum(['false']).optional(),
});
/** Translation (to English) takes neither a source language nor timestamps. */
const TRANSCRIPTION_ONLY_FIELDS = ['language', 'timestamp_granularities'] as const;

type Task = 'transcription' | 'translation';

/**
 * `POST /v1/audio/transcriptions` and `/v1/audio/translations`: a multipart upload of
 * at most 25 MB, billed per second of audio as the upstream measured it.
 *
 * For text, srt and vtt the upstream is asked for JSON and the format is rendered
 * here (see render-transcript.ts), because only JSON answers carry the duration. An
 * upstream that reports neither duration nor tokens (some OpenAI-compatible servers)
 * is billed the file-size bound: conservative, never a guess in the caller's favour.
 */
export async function transcriptionsRoutes(app: FastifyInstance, deps: MediaRouteDeps): Promise<void> {
  // Registered here so multipart parsing exists in this plugin's scope only.
  await app.register(fastifyMultipart, { limits: AUDIO_FORM_LIMITS });
  const routes: Array<[string, Task, string]> = [
    ['/audio/transcriptions', 'transcription', 'audio.transcriptions'],
    ['/audio/translations', 'translation', 'audio.translations'],
  ];
  for (const [path, task, endpoint] of routes) {
    app.post(
      path,
      {
        onRequest: async (request) => refuseOversizedUpload(request),
        preHandler: requireKey(deps.authenticator, { kinds: ['model'] }),
      },
      async (request, reply) => transcribe(deps, task, endpoint, request, reply),
    );
  }
}

async function transcribe(deps: MediaRouteDeps, task: Task, endpoint: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const form = await readAudioForm(request);
  const fields = parseInput(TranscriptionFormSchema, form.fields, 'form');
  for (const name of task === 'translation' ? TRANSCRIPTION_ONLY_FIELDS : []) {
    if (fields[name] !== undefined) throw new JunctionError('invalid_request', `Unknown field '${name}' in form: translations take none.`, { param: name });
  }
  const file = form.file;
  if (!file || file.data.length === 0) throw new JunctionError('invalid_request', "The form has no audio in a 'file' part.", { param: 'file' });
  const requested = fields.response_format ?? 'json';
  const granularities = fields.timestamp_granularities;
  const mediaParams = {
    language: fields.language,
    prompt: fields.prompt,
    temperature: fields.temperature,
    response_format: fields.response_format,
    timestamp_granularities: granularities,
  };
  const boundSeconds = durationBoundSeconds(file.data.length);

  const result = await deps.unary.run(callContextFrom(request, reply, endpoint), {
    model: fields.model,
    capability: 'audio_transcription',
    worstCase: (model) => {
      checkMediaParams(model, mediaParams);
      return computeTranscriptionCost(model, { durationSeconds: boundSeconds });
    },
    call: (adapter, model, signal) => {
      const upstreamFields: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(form.fields)) {
        if (typeof value === 'string' && name !== 'model' && name !== 'stream') upstreamFields[name] = value;
      }
      if (fields.response_format) upstreamFields['response_format'] = upstreamFormat(requested, model);
      // Each granularity as its own `timestamp_granularities[]` part, as the openai clients send them.
      if (granularities) upstreamFields['timestamp_granularities[]'] = [...new Set(granularities)];
      return requireMethod(adapter, 'transcribe', model)({ model: model.upstreamName, task, file, fields: upstreamFields }, { signal });
    },
    meter: (response, model) => {
      const measured = response.durationSeconds;
      // Token-priced models bill the reported tokens; the bound only prices a call
      // whose upstream reported neither tokens nor duration.
      const cost = computeTranscriptionCost(model, { durationSeconds: measured ?? boundSeconds, usage: response.usage });
      const units: Record<string, number> = measured !== undefined ? { audio_seconds: measured } : { audio_seconds_bound: boundSeconds };
      return { costMicros: cost, ...(response.usage && { usage: response.usage }), units };
    },
  });
  if (result.rateLimit) reply.headers(rateLimitHeaders(result.rateLimit));
  const rendered = renderTranscript(requested, result.value);
  return reply.header('content-type', rendered.contentType).send(rendered.body);
}
