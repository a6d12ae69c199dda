import type { preHandlerAsyncHookHandler } from 'fastify';
import { JunctionError } from '../core/errors.ts';
import { apiKeyFromRequest } from '../http/api-key-from-request.ts';
import { checkKey } from '../http/auth-hook.ts';
import type { KeyAuthenticator } from '../keys/key-authenticator.ts';
import type { KeyHasher } from '../keys/key-hash.ts';
import type { Database } from '../store/database.ts';
import { checkSameOrigin, resolveCaller } from './console-auth.ts';
import { readCookie, SESSION_COOKIE } from './cookies.ts';
import { playgroundKeyFor } from './playground-key.ts';

/**
 * Who may call `/agents/v1`: an agent key, as always; or, without any key, a console
 * session (the playground), same-origin and CSRF-checked on every POST/DELETE, acting
 * as that person's playground key in the session's current account.
 */
export function agentsApiAuth(deps: { db: Database; hasher: KeyHasher; authenticator: KeyAuthenticator; now: () => Date }): preHandlerAsyncHookHandler {
  const byKey = checkKey(deps.authenticator, { kinds: ['agent'] });
  return async (request) => {
    if (apiKeyFromRequest(request) !== undefined || !readCookie(request, SESSION_COOKIE)) return byKey(request);
    const caller = await resolveCaller(deps.db, request, deps.now());
    if (!caller) throw new JunctionError('invalid_api_key', 'No API key was given, and the console session has ended: sign in again.');
    if (request.method !== 'GET') {
      checkSameOrigin(request);
      if (request.headers['x-csrf-token'] !== caller.session.csrfToken) throw new JunctionError('forbidden', 'The CSRF token is missing or wrong; reload the console and try again.');
    }
    request.apiKey = await playgroundKeyFor(deps.db, deps.hasher, caller.accountId, caller.user);
  };
}
