import { JunctionError } from '../core/errors.ts';

/**
 * Why a document could not be turned into text. `kind` survives the trip from the
 * extraction thread (as data) and decides the status: the document's own fault is 400,
 * a document larger than the limits is 413, a full pool is 429 (one account) or 503.
 */
export type ExtractionFailureKind =
  | 'unsupported'
  | 'unreadable'
  | 'encrypted'
  | 'too_deep'
  | 'timed_out'
  | 'text_too_large'
  | 'inflates_too_large'
  | 'too_many_chunks'
  | 'out_of_memory'
  | 'account_busy'
  | 'pool_busy'
  | 'stopped';

export class ExtractionFailure extends Error {
  readonly kind: ExtractionFailureKind;

  constructor(kind: ExtractionFailureKind, message: string) {
    super(message);
    this.name = 'ExtractionFailure';
    this.kind = kind;
  }
}

export const isExtractionFailure = (value: unknown): value is ExtractionFailure => value instanceof ExtractionFailure;

const TOO_LARGE: ReadonlySet<ExtractionFailureKind> = new Set(['text_too_large', 'inflates_too_large', 'too_many_chunks', 'out_of_memory']);

/** The HTTP answer for a failure; the message already names the file. */
export function extractionError(failure: ExtractionFailure): JunctionError {
  const options = { param: 'file', cause: failure };
  if (TOO_LARGE.has(failure.kind)) return new JunctionError('request_too_large', failure.message, options);
  if (failure.kind === 'account_busy') return new JunctionError('rate_limit_exceeded', failure.message, { ...options, headers: { 'retry-after': '5' } });
  if (failure.kind === 'pool_busy' || failure.kind === 'stopped') return new JunctionError('service_unavailable', failure.message, { ...options, headers: { 'retry-after': '5' } });
  return new JunctionError('invalid_request', failure.message, options);
}
