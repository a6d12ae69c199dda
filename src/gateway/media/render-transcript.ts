import { z } from 'zod';
import type { CatalogModel } from '../../catalog/types.ts';

/**
 * Transcription billing needs the audio's duration, which OpenAI reports in JSON
 * answers only (`verbose_json`'s `duration`, `json`'s `usage.seconds`, or tokens for
 * token-billed models) — never in `text`, `srt` or `vtt`. So for those three formats
 * we ask the upstream for JSON (verbose_json where the model offers it, since srt/vtt
 * need its segments) and render the requested format from it ourselves. The client
 * gets what it asked for and is billed for what the upstream measured, without an
 * audio parser of our own or a guess from the file size.
 */

export const TRANSCRIPT_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt', 'diarized_json'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

const RENDERED_FORMATS: ReadonlySet<TranscriptFormat> = new Set(['text', 'srt', 'vtt']);

/** The response_format sent upstream for a requested one. */
export function upstreamFormat(requested: TranscriptFormat, model: CatalogModel): TranscriptFormat {
  if (!RENDERED_FORMATS.has(requested)) return requested;
  return offersFormat(model, 'verbose_json') ? 'verbose_json' : 'json';
}

/** Without a schema we cannot know, and OpenAI-style servers commonly offer verbose_json. */
function offersFormat(model: CatalogModel, format: TranscriptFormat): boolean {
  const properties = model.mediaParamsSchema?.['properties'];
  if (typeof properties !== 'object' || properties === null) return true;
  const responseFormat: unknown = Reflect.get(properties, 'response_format');
  if (typeof responseFormat !== 'object' || responseFormat === null) return true;
  const allowed: unknown = Reflect.get(responseFormat, 'enum');
  return !Array.isArray(allowed) || allowed.includes(format);
}

const TranscriptJsonSchema = z
  .object({
    text: z.string(),
    duration: z.number().nullish(),
    segments: z.array(z.object({ start: z.number(), end: z.number(), text: z.string() }).loose()).nullish(),
  })
  .loose();

export type RenderedTranscript = { contentType: string; body: Buffer | string };

/** The answer in the requested format; upstream answers we asked for as-is pass through unchanged. */
export function renderTranscript(requested: TranscriptFormat, upstream: { contentType: string; body: Buffer }): RenderedTranscript {
  if (!RENDERED_FORMATS.has(requested)) return upstream;
  const transcript = parseTranscript(upstream);
  // An upstream that ignored response_format and answered in text already: relay it.
  if (!transcript) return upstream;
  const contentType = 'text/plain; charset=utf-8';
  if (requested === 'text') return { contentType, body: `${transcript.text}\n` };
  const segments = transcript.segments?.length ? transcript.segments : [{ start: 0, end: transcript.duration ?? 0, text: transcript.text }];
  if (requested === 'srt') {
    const cues = segments.map((segment, index) => `${index + 1}\n${timestamp(segment.start, ',')} --> ${timestamp(segment.end, ',')}\n${segment.text.trim()}\n`);
    return { contentType, body: `${cues.join('\n')}\n` };
  }
  const cues = segments.map((segment) => `${timestamp(segment.start, '.')} --> ${timestamp(segment.end, '.')}\n${segment.text.trim()}\n`);
  return { contentType, body: `WEBVTT\n\n${cues.join('\n')}\n` };
}

function parseTranscript(upstream: { contentType: string; body: Buffer }): z.infer<typeof TranscriptJsonSchema> | undefined {
  if (!upstream.contentType.includes('json')) return undefined;
  try {
    const parsed = TranscriptJsonSchema.safeParse(JSON.parse(upstream.body.toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** `HH:MM:SS,mmm` (SubRip) or `HH:MM:SS.mmm` (WebVTT). */
function timestamp(seconds: number, separator: ',' | '.'): string {
  const totalMs = Math.max(0, Math.round(seconds * 1000));
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  const hours = Math.floor(totalMs / 3_600_000);
  const minutes = Math.floor((totalMs % 3_600_000) / 60_000);
  const secs = Math.floor((totalMs % 60_000) / 1000);
  return `${pad(hours)}:${pad(minutes)}:${pad(secs)}${separator}${pad(totalMs % 1000, 3)}`;
}
