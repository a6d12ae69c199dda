import type { FastifyRequest } from 'fastify';
import type { Multipart, MultipartFile } from '@fastify/multipart';
import { JunctionError } from '../../core/errors.ts';
import { AUDIO_UPLOAD_LIMIT } from '../../http/body-limits.ts';

/** Room for the form's text fields and multipart boundaries on top of the file. */
const FORM_OVERHEAD = 1024 * 1024;
/** Per text field; prompts are the longest and OpenAI caps them far below this. */
export const FIELD_SIZE_LIMIT = 64 * 1024;

/** The busboy limits given to @fastify/multipart for the audio routes. */
export const AUDIO_FORM_LIMITS = { fileSize: AUDIO_UPLOAD_LIMIT, files: 1, fields: 32, parts: 40, fieldSize: FIELD_SIZE_LIMIT };

export type AudioForm = {
  /** Text fields; `name[]` fields (the openai client's arrays) collected under `name`. */
  fields: Record<string, string | string[]>;
  file: { data: Buffer; filename: string; contentType: string } | undefined;
};

/**
 * A declared body that cannot fit is refused before a byte of it is read. Bodies sent
 * without a length (chunked) are caught by the multipart limit while streaming.
 */
export function refuseOversizedUpload(request: FastifyRequest): void {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > AUDIO_UPLOAD_LIMIT + FORM_OVERHEAD) throw fileTooLarge();
}

/** Reads the multipart form: text fields, and the one audio file (see collectFile). */
export async function readAudioForm(request: FastifyRequest): Promise<AudioForm> {
  if (!request.isMultipart()) {
    throw new JunctionError('unsupported_media_type', 'Send the audio as multipart/form-data with a `file` part.');
  }
  const form: AudioForm = { fields: {}, file: undefined };
  try {
    for await (const part of request.parts()) await readPart(part, form);
  } catch (error) {
    throw toFormError(error);
  }
  return form;
}

async function readPart(part: Multipart, form: AudioForm): Promise<void> {
  if (part.type === 'file') {
    if (part.fieldname !== 'file') {
      part.file.resume();
      throw new JunctionError('invalid_request', `Unexpected file field '${part.fieldname}'; the audio goes in 'file'.`, { param: part.fieldname });
    }
    const data = await collectFile(part);
    form.file = { data, filename: part.filename || 'audio', contentType: part.mimetype || 'application/octet-stream' };
    return;
  }
  if (part.valueTruncated) {
    throw new JunctionError('invalid_request', `The field '${part.fieldname}' is longer than ${FIELD_SIZE_LIMIT} bytes.`, { param: part.fieldname });
  }
  const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
  if (part.fieldname.endsWith('[]')) {
    const name = part.fieldname.slice(0, -2);
    const existing = form.fields[name];
    if (Array.isArray(existing)) form.fields[name] = [...existing, value];
    else form.fields[name] = existing === undefined ? [value] : [existing, value];
  } else if (form.fields[part.fieldname] !== undefined) {
    throw new JunctionError('invalid_request', `The field '${part.fieldname}' is given more than once.`, { param: part.fieldname });
  } else {
    form.fields[part.fieldname] = value;
  }
}

/**
 * Collects the file, failing the moment busboy reports the `fileSize` limit. Not
 * `toBuffer()`: it also stops keeping bytes at the limit, but only throws once the
 * part has ended — a client still sending (or stalling) would hold the request open
 * instead of getting its 413 at 25 MB.
 */
function collectFile(part: MultipartFile): Promise<Buffer> {
  const file = part.file;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer) => chunks.push(chunk);
    file.on('data', onData);
    file.once('limit', () => {
      file.off('data', onData);
      chunks.length = 0;
      // Keep draining so busboy can read (and discard) the rest of the body.
      file.resume();
      reject(fileTooLarge());
    });
    file.once('end', () => (file.truncated ? reject(fileTooLarge()) : resolve(Buffer.concat(chunks))));
    file.once('error', reject);
  });
}

const fileTooLarge = () => new JunctionError('request_too_large', `The audio file is larger than ${AUDIO_UPLOAD_LIMIT / (1024 * 1024)} MB.`, { param: 'file' });

function toFormError(error: unknown): JunctionError {
  if (error instanceof JunctionError) return error;
  const code = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return fileTooLarge();
    case 'FST_FILES_LIMIT':
      return new JunctionError('invalid_request', 'Send exactly one file.', { param: 'file' });
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new JunctionError('invalid_request', 'The form has too many fields.');
    default:
      return new JunctionError('invalid_request', `The multipart body could not be read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
