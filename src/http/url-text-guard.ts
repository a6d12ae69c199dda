import type { FastifyInstance } from 'fastify';
import { type UnstorableReason, unstorableReason } from '../core/storable-text.ts';
import { unstorableTextError } from './unstorable-text.ts';

/**
 * Path parameters and query strings of every route, checked once before any hook or
 * handler: `%00` decodes to a NUL that the database refuses (in a lookup as much as in
 * a write), so it is a 400 naming the parameter, never a failed query. Lone surrogates
 * cannot arrive here (percent-decoding yields UTF-8), but the same rule covers them.
 */
export function registerUrlTextGuard(app: FastifyInstance): void {
  // Callback style, no allocation on the common path: this runs on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    const params = request.params as Record<string, unknown> | undefined;
    for (const name in params) {
      const value = params[name];
      const reason = typeof value === 'string' ? unstorableReason(value) : undefined;
      if (reason) return done(unstorableTextError('path parameter', [name === '*' ? 'path' : name], reason));
    }
    const query = request.query as Record<string, unknown> | undefined;
    for (const name in query) {
      const reason = unstorableReason(name) ?? queryValueReason(query[name]);
      if (reason) return done(unstorableTextError('query string', [name], reason));
    }
    done();
  });
}

/** A query value is a string, or an array of them when the name repeats. */
function queryValueReason(value: unknown): UnstorableReason | undefined {
  if (typeof value === 'string') return unstorableReason(value);
  if (!Array.isArray(value)) return undefined;
  for (const text of value) {
    const reason = typeof text === 'string' ? unstorableReason(text) : undefined;
    if (reason) return reason;
  }
  return undefined;
}
