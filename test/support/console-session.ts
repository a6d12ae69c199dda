import type { FastifyInstance } from 'fastify';
import type { LightMyRequestResponse } from 'fastify';
import { issueSetupLink } from '../../src/console/session-routes.ts';
import type { Database } from '../../src/store/database.ts';

/** A signed-in console user driven through inject(): keeps the session cookie and sends the CSRF token. */
export type ConsoleSession = {
  cookie: string;
  csrf: string;
  request(method: string, url: string, payload?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
};

export const ORIGIN = 'http://localhost:80';

export function sessionCookieOf(response: LightMyRequestResponse): string {
  const header = response.headers['set-cookie'];
  const value = Array.isArray(header) ? header[0] : header;
  const match = /junction_session=([^;]+)/.exec(value ?? '');
  if (!match?.[1]) throw new Error(`no session cookie in ${response.statusCode} ${response.body}`);
  return `junction_session=${match[1]}`;
}

export async function signIn(app: FastifyInstance, email: string, password: string): Promise<ConsoleSession> {
  const response = await app.inject({ method: 'POST', url: '/console/api/session', headers: { origin: ORIGIN, host: 'localhost:80' }, payload: { email, password } });
  return sessionFrom(app, sessionCookieOf(response));
}

export async function sessionFrom(app: FastifyInstance, cookie: string): Promise<ConsoleSession> {
  const me = await app.inject({ method: 'GET', url: '/console/api/me', headers: { cookie } });
  const csrf = me.json<{ csrf_token: string }>().csrf_token;
  return {
    cookie,
    csrf,
    request: (method, url, payload, headers = {}) =>
      app.inject({
        method: method as 'GET',
        url,
        headers: { cookie, host: 'localhost:80', origin: ORIGIN, 'x-csrf-token': csrf, ...headers },
        ...(payload !== undefined && { payload: payload as object }),
      }),
  };
}

/** The first owner, made through the one-time setup link, signed in. */
export async function setUpOwner(app: FastifyInstance, db: Database, email = 'owner@example.com'): Promise<ConsoleSession> {
  const link = await issueSetupLink(db, 'http://localhost', new Date());
  const token = new URL(link as string).searchParams.get('token') as string;
  const setup = await app.inject({ method: 'POST', url: '/console/api/setup', headers: { origin: ORIGIN, host: 'localhost:80' }, payload: { token, email, password: 'correct horse battery' } });
  return sessionFrom(app, sessionCookieOf(setup));
}
