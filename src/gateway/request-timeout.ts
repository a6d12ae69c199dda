import type { IncomingHttpHeaders } from 'node:http';
import { JunctionError } from '../core/errors.ts';

/** The request header that shortens each attempt's wait for the answer, in milliseconds. */
export const TIMEOUT_HEADER = 'x-junction-timeout-ms';

/** Whole milliseconds from 1; a value past the configured limit is cut to it later, never refused. */
const MILLISECONDS = /^[1-9][0-9]{0,14}$/;

/**
 * The request's `x-junction-timeout-ms`, checked: a header any SDK can send as a default
 * header, on every chat, messages, generate-content and Agents API route alike.
 */
export function requestTimeoutMs(headers: IncomingHttpHeaders): number | undefined {
  const value = headers[TIMEOUT_HEADER];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !MILLISECONDS.test(value.trim())) {
    throw new JunctionError('invalid_request', `${TIMEOUT_HEADER} must be a whole number of milliseconds above 0.`, { param: TIMEOUT_HEADER });
  }
  return Number(value.trim());
}
