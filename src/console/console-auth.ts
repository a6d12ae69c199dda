import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { JunctionError } from '../core/errors.ts';
import { publicOrigin } from '../http/public-origin.ts';
import type { Database } from '../store/database.ts';
import type { Role } from './contract/session.ts';
import { readCookie, SESSION_COOKIE } from './cookies.ts';
import { type Session, touchSession } from './session-repository.ts';
import { findUser, roleIn, type User } from './user-repository.ts';

export type ConsoleCaller = { session: Session; user: User; accountId: string; role: Role };

declare module 'fastify' {
  interface FastifyRequest {
    consoleCaller: ConsoleCaller | undefined;
  }
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

/**
 * CSRF defence for cookie-authenticated requests: a mutating request must come from
 * the server's public origin (Origin header, or Sec-Fetch-Site same-origin when a browser
 * omits Origin) AND echo the session's CSRF token in `x-csrf-token`, which a page on
 * another origin cannot read. The public origin is JUNCTION_PUBLIC_URL, else the
 * request's own as a trusted proxy reports it (src/http/public-origin.ts).
 */
export function checkSameOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin) {
    const from = normalisedOrigin(origin);
    if (!from || from !== publicOrigin(request)) {
      throw new JunctionError('forbidden', 'This request came from another origin and was refused.');
    }
    return;
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new JunctionError('forbidden', 'This request came from another site and was refused.');
  }
}

/** `scheme://host[:port]` with default ports dropped, so `http://a:80` equals `http://a`. */
function normalisedOrigin(value: string): string | undefined {
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}

/** The signed-in person and their role in the session's current account, checked on every request. */
export async function resolveCaller(db: Database, request: FastifyRequest, now: Date): Promise<ConsoleCaller | undefined> {
  const token = readCookie(request, SESSION_COOKIE);
  if (!token) return undefined;
  const session = await touchSession(db, token, now);
  if (!session) return undefined;
  const [user, role] = await Promise.all([findUser(db, session.userId), roleIn(db, session.userId, session.accountId)]);
  if (!user || !role) return undefined;
  return { session, user, accountId: session.accountId, role };
}

/** A preHandler: signed in, with at least `minimum` role, and CSRF-checked when mutating. */
export const requireConsoleUser =
  (db: Database, now: () => Date, minimum: Role = 'member'): preHandlerAsyncHookHandler =>
  async (request) => {
    const caller = await resolveCaller(db, request, now());
    if (!caller) throw new JunctionError('not_signed_in', 'Sign in to the console first (or your session expired).');
    if (MUTATING.has(request.method)) {
      checkSameOrigin(request);
      if (request.headers['x-csrf-token'] !== caller.session.csrfToken) {
        throw new JunctionError('forbidden', 'The CSRF token is missing or wrong; reload the console and try again.');
      }
    }
    if (RANK[caller.role] < RANK[minimum]) {
      throw new JunctionError('forbidden', `This needs the ${minimum} role in this account; yours is ${caller.role}.`);
    }
    request.consoleCaller = caller;
  };

export function consoleCaller(request: FastifyRequest): ConsoleCaller {
  if (!request.consoleCaller) throw new JunctionError('not_signed_in', 'Sign in to the console first.');
  return request.consoleCaller;
}
