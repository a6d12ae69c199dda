/**
 * Whether an error means "the database cannot be reached right now" (server down,
 * restarting, connection cut) rather than "this statement is wrong". The first is
 * retried and answered with 503; the second is a bug or bad data and must not be.
 */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '53300', // too_many_connections
]);

const CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection ended unexpectedly',
  'the database system is starting up',
  'the database system is shutting down',
];

export function isConnectionError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    if (typeof current !== 'object') return false;
    const { code, message, errors } = current as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
    if (typeof message === 'string' && CONNECTION_MESSAGES.some((text) => message.includes(text))) return true;
    // AggregateError from a dual-stack connect (127.0.0.1 and ::1 both refused).
    if (Array.isArray(errors) && errors.some((inner) => isConnectionError(inner))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
