/**
 * Whether an error means "the database cannot be used right now" (server down,
 * restarting, refusing this role or database, out of connections) rather than "this
 * statement is wrong". The first is retried and answered with 503; the second is a bug
 * or bad data and must not be.
 *
 * `unreachable`: the database refuses or cannot be reached. `busy`: it answers, but every
 * connection of this process's pool stayed in use for the whole connect timeout.
 */
export type DatabaseOutage = 'unreachable' | 'busy';

/**
 * What the store throws when it could not get a connection at all: any failure of that
 * step is an outage, whatever its SQLSTATE (55000 "not currently accepting connections"
 * shares its code with statement errors, so only where it arose tells them apart).
 */
export class DatabaseUnavailableError extends Error {
  readonly outage: DatabaseOutage;

  constructor(outage: DatabaseOutage, cause: unknown) {
    super(`${outage === 'busy' ? 'every database connection is in use' : 'the database cannot be used'}: ${(cause as Error | undefined)?.message ?? String(cause)}`, { cause });
    this.name = 'DatabaseUnavailableError';
    this.outage = outage;
  }
}

/** Socket-level failures (Node errno codes). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** SQLSTATEs outside the classes below that still mean the server will not serve this process now. */
const OUTAGE_STATES = new Set([
  '3D000', // invalid_catalog_name: the database does not exist (dropped or renamed)
  '57P01', // admin_shutdown (also a terminated backend)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '57P04', // database_dropped
]);

/** SQLSTATE classes that are outages whole: 08 connection exception, 28 authorization refused, 53 insufficient resources. */
const OUTAGE_CLASSES = new Set(['08', '28', '53']);

/**
 * node-postgres reports a connection lost mid-query with no code at all, only these
 * messages (pg/lib/client.js): the one place a message is matched, for want of a code.
 */
const CODELESS_CONNECTION_LOSS = [
  'Connection terminated', // also "… unexpectedly" and "… due to connection timeout"
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout expired', // a client's own connect timeout
];

export function databaseOutageOf(error: unknown): DatabaseOutage | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    if (typeof current !== 'object') return undefined;
    if (current instanceof DatabaseUnavailableError) return current.outage;
    const { code, message, errors } = current as { code?: unknown; message?: unknown; errors?: unknown };
    if (typeof code === 'string') {
      if (SOCKET_CODES.has(code) || OUTAGE_STATES.has(code) || OUTAGE_CLASSES.has(code.slice(0, 2))) return 'unreachable';
    } else if (typeof message === 'string' && CODELESS_CONNECTION_LOSS.some((text) => message.startsWith(text))) {
      return 'unreachable';
    }
    // AggregateError from a dual-stack connect (127.0.0.1 and ::1 both refused).
    if (Array.isArray(errors)) {
      const inner = errors.map((item: unknown) => databaseOutageOf(item)).find((outage) => outage !== undefined);
      if (inner) return inner;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isConnectionError(error: unknown): boolean {
  return databaseOutageOf(error) !== undefined;
}
