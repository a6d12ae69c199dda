import type { FastifyInstance } from 'fastify';
import { unstorableReason, unstorableTextError } from './unstorable-text.ts';

/**
 * Path parameters and query strings of every route, checked once before any hook or
 * handler: `%00` decodes to a NUL that the database refuses (in a lookup as much as in
 * a write), so it is a 400 naming the parameter, never a failed query. Lone surrogates
 * cannot arrive here (percent-decoding yields UTF-8), but the same rule covers them.
 */
export function registerUrlTextGuard(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const params = request.params as Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(params ?? {})) {
      const reason = typeof value === 'string' ? unstorableReason(value) : undefined;
      if (reason) return done(unstorableTextError('path parameter', [name === '*' ? 'path' : name], reason));
    }
    const query = request.query as Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(query ?? {})) {
      const keyReason = unstorableReason(name);
      if (keyReason) return done(unstorableTextError('query string', [name], keyReason));
      for (const text of Array.isArray(value) ? value : [value]) {
        const reason = typeof text === 'string' ? unstorableReason(text) : undefined;
        if (reason) return done(unstorableTextError('query string', [name], reason));
      }
    }
    done();
  });
}
