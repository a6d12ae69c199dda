import type { FastifyRequest, preHandlerHookHandler } from 'fastify';
import { JunctionError } from '../core/errors.ts';
import type { AuthenticateOptions, KeyAuthenticator } from '../keys/key-authenticator.ts';
import type { ApiKeyRecord } from '../keys/key-record.ts';
import { apiKeyFromRequest } from './api-key-from-request.ts';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKeyRecord | undefined;
  }
}

/**
 * A preHandler that authenticates the request's key for one endpoint family. Callback
 * style: a key already in the cache (nearly every request) is checked without a promise;
 * an async hook cost one per request and fastify's promise handling after it.
 */
export const requireKey =
  (authenticator: KeyAuthenticator, options: AuthenticateOptions): preHandlerHookHandler =>
  (request, _reply, done) => {
    const plainKey = apiKeyFromRequest(request);
    let cached: ApiKeyRecord | undefined;
    try {
      cached = authenticator.authenticateCached(plainKey, options);
    } catch (error) {
      return done(error as Error);
    }
    if (cached) {
      request.apiKey = cached;
      return done();
    }
    authenticator.authenticate(plainKey, options).then(
      (record) => {
        request.apiKey = record;
        done();
      },
      (error: Error) => done(error),
    );
  };

/** requireKey for a caller that awaits it inside a hook of its own. */
export function checkKey(authenticator: KeyAuthenticator, options: AuthenticateOptions): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    request.apiKey = await authenticator.authenticate(apiKeyFromRequest(request), options);
  };
}

/** The key the preHandler put on the request (routes only run after it). */
export function authenticatedKey(request: FastifyRequest): ApiKeyRecord {
  if (!request.apiKey) throw new JunctionError('invalid_api_key', 'No API key was given.');
  return request.apiKey;
}
