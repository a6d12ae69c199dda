import { JunctionError } from '../core/errors.ts';
import { type DatabaseOutage, databaseOutageOf } from './connection-errors.ts';

/** Seconds a client is told to wait before retrying a call the database could not serve. */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

const MESSAGES: Record<DatabaseOutage, string> = {
  unreachable: 'The service cannot use its database right now; retry shortly.',
  busy: 'The service is busy: all of its database connections are in use; retry shortly.',
};

/** The 503 (with Retry-After) for a database outage: the call may well succeed shortly, and the caller is not at fault. */
export const outageRefusal = (outage: DatabaseOutage, cause?: unknown): JunctionError =>
  new JunctionError('service_unavailable', MESSAGES[outage], { headers: { 'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS) }, cause });

/** `error` as that 503 when it is a database outage; undefined for any other error. */
export function databaseOutageAnswer(error: unknown): JunctionError | undefined {
  const outage = databaseOutageOf(error);
  return outage === undefined ? undefined : outageRefusal(outage, error);
}
