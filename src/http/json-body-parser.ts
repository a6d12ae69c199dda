import type { FastifyInstance } from 'fastify';
import { deepJsonError } from './json-nesting-depth.ts';
import { unstorableValueError } from './unstorable-text.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that takes no body (`/responses/{id}/cancel`): an empty JSON body is no error. */
    bodyOptional?: boolean;
  }
}

/** Methods whose requests carry no body, though clients may still label them JSON. */
const BODYLESS_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS']);

/**
 * A `\u0000` or `\uD800`–`\uDFFF` escape: the only ways a JSON text can carry a NUL or a
 * lone surrogate (JSON.parse refuses raw control characters, and the body was decoded
 * from UTF-8, which has no surrogates).
 */
const UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89abcdefABCDEF])/;

/**
 * Routes whose body text goes to a provider and is never stored: the gateway's model
 * routes under /v1 and /v1beta, where a NUL in message content is the provider's to
 * judge. Everything else stores what it receives (console, Agents API, key management),
 * so a NUL there is refused before any work is done, and before any model call is billed.
 */
export function forwardsBodyText(routeUrl: string | undefined): boolean {
  if (!routeUrl) return false;
  return (routeUrl.startsWith('/v1/') || routeUrl.startsWith('/v1beta/')) && !routeUrl.startsWith('/v1/keys');
}

/**
 * fastify's JSON parser, plus the checks at the edge that keep a body from failing deep
 * in billing or conversation storage: it nests at most MAX_JSON_DEPTH levels, and its
 * text can be stored (see unstorable-text.ts) — a 400 naming the field otherwise. Only
 * bodies holding an escape of such text are walked.
 *
 * An empty body labelled JSON is no body at all on a body-less method or route: the
 * Python `openai` client (`responses.delete`, `responses.cancel`) and OpenRouter-style
 * key deletion send `Content-Type: application/json` with nothing after it.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, raw, done) => {
    const body = typeof raw === 'string' ? raw : raw.toString('utf8');
    // The blank test first: routeOptions builds a new object on every read.
    if (body.trim() === '' && (BODYLESS_METHODS.has(request.method) || request.routeOptions.config?.bodyOptional)) return done(null, undefined);
    const tooDeep = deepJsonError(body, 'request body');
    if (tooDeep) return done(tooDeep, undefined);
    parse(request, body, (error, value) => {
      if (error) return done(error, undefined);
      const unstorable = UNSTORABLE_ESCAPE.test(body) ? unstorableValueError(value, 'request body', { allowNul: forwardsBodyText(request.routeOptions.url) }) : undefined;
      if (unstorable) return done(unstorable, undefined);
      done(null, value);
    });
  });
}
