/** A variable the service cannot start with (the message names it). */
export class EnvConfigError extends Error {
  override name = 'EnvConfigError';
}
