import type { FastifyInstance } from 'fastify';
import { JunctionError } from '../core/errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that takes no body (`/responses/{id}/cancel`): an empty JSON body is no error. */
    bodyOptional?: boolean;
  }
}

/** Methods whose requests carry no body, though clients may still label them JSON. */
const BODYLESS_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS']);

/** A `\uD800`–`\uDFFF` escape: the only way a JSON text can carry a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89abcdefABCDEF]/;

/**
 * fastify's JSON parser, plus one check at the edge: text must be valid Unicode. A
 * lone UTF-16 surrogate cannot be stored (PostgreSQL's text and jsonb refuse it) nor
 * sent on as UTF-8, so it is a 400 naming the field, not a failure deep in billing or
 * conversation storage. Only bodies holding a surrogate escape are walked.
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
    parse(request, body, (error, value) => {
      if (error) return done(error, undefined);
      if (SURROGATE_ESCAPE.test(body)) {
        const path = findMalformedText(value, []);
        if (path) {
          const param = path.join('.') || null;
          return done(
            new JunctionError('invalid_request', `The request body holds text that is not valid Unicode (a lone UTF-16 surrogate)${param ? ` at '${param}'` : ''}.`, { param }),
            undefined,
          );
        }
      }
      done(null, value);
    });
  });
}

function findMalformedText(value: unknown, path: string[]): string[] | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : path;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = findMalformedText(value[index], [...path, String(index)]);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (!key.isWellFormed()) return [...path, key.toWellFormed()];
      const found = findMalformedText(inner, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}
