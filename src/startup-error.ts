import { CatalogConfigError } from './catalog/config-error.ts';
import { EnvConfigError } from './config/env-config-error.ts';
import { isConnectionError } from './store/connection-errors.ts';
import { StoreInUseError } from './store/data-dir-lock.ts';

/**
 * The one line to print when the server cannot start for a reason the operator can fix
 * (configuration, a busy port or store, an unreachable database); undefined for anything
 * else, which is a bug and keeps its stack trace.
 */
export function describeStartupError(error: unknown, listen: { host: string; port: number }): string | undefined {
  if (error instanceof EnvConfigError || error instanceof StoreInUseError) return error.message;
  // One line: the file's problems joined, each still naming its path.
  if (error instanceof CatalogConfigError) return error.message.replace(/:\n\s*- /, ': ').replaceAll(/\n\s*- /g, '; ');
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return `port ${listen.port} on ${listen.host} is in use (another server?); stop it or set PORT to a free port.`;
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL') return `cannot listen on ${listen.host}:${listen.port} (${code}); set HOST and PORT to an address this user may use.`;
  // The message names the address; whether it was PostgreSQL or Redis, the fix is the same.
  if (isConnectionError(error))
    return `cannot connect to a service it is configured with (${(error as Error).message}); check that PostgreSQL (DATABASE_URL) and Redis (REDIS_URL), where set, are running and the URLs are right.`;
  return undefined;
}
