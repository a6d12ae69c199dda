import Fastify from 'fastify';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { readEnvConfig } from '../../src/config/env-config.ts';
import { EnvConfigError } from '../../src/config/env-config-error.ts';
import { fastifyTrustProxy, publicOrigin, registerPublicOrigin } from '../../src/http/public-origin.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The console behind an HTTPS reverse proxy: forwarded scheme and host are believed from
 * trusted proxies only (JUNCTION_TRUST_PROXY), JUNCTION_PUBLIC_URL wins over anything a
 * request says, the session cookie is Secure when the public origin is https, and the
 * CSRF check compares with that origin.
 */

const EMAIL = 'owner@example.com';
const PASSWORD = 'a long enough password';
const PUBLIC = 'https://junction.example';
const PROXY_PEER = '10.1.2.3';
const DIRECT_PEER = '203.0.113.9';

let behindProxy: TestApp;
let withPublicUrl: TestApp;

async function withOwner(env: Record<string, string>): Promise<TestApp> {
  const app = await startTestApp(env);
  await runAdminCommand(app.services, { command: 'users.create', email: EMAIL, password: PASSWORD, role: 'owner' });
  return app;
}

const signIn = (app: TestApp, peer: string, headers: Record<string, string>) =>
  app.app.inject({ method: 'POST', url: '/console/api/session', remoteAddress: peer, headers, payload: { email: EMAIL, password: PASSWORD } });

const cookieOf = (response: LightMyRequestResponse): string => {
  const header = response.headers['set-cookie'];
  return (Array.isArray(header) ? header[0] : header) ?? '';
};

beforeAll(async () => {
  behindProxy = await withOwner({ JUNCTION_TRUST_PROXY: '10.0.0.0/8' });
  withPublicUrl = await withOwner({ JUNCTION_PUBLIC_URL: `${PUBLIC}/` });
});
afterAll(async () => {
  await behindProxy?.close();
  await withPublicUrl?.close();
});

describe('behind a trusted HTTPS proxy', () => {
  const forwarded = { host: '10.0.0.7:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'junction.example', 'x-forwarded-for': '198.51.100.4', origin: PUBLIC };

  it('signs in with a Secure cookie and passes CSRF from the proxy, but ignores the same headers from anyone else', async () => {
    const signedIn = await signIn(behindProxy, PROXY_PEER, forwarded);
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json()).toEqual({ ok: true });
    const cookie = cookieOf(signedIn);
    expect(cookie).toMatch(/^junction_session=[^;]+;.*; Secure$/);

    const session = cookie.split(';')[0] ?? '';
    const me = await behindProxy.app.inject({ method: 'GET', url: '/console/api/me', remoteAddress: PROXY_PEER, headers: { ...forwarded, cookie: session } });
    const csrf = me.json<{ csrf_token: string }>().csrf_token;
    const mutate = (peer: string, headers: Record<string, string>) =>
      behindProxy.app.inject({ method: 'DELETE', url: '/console/api/session', remoteAddress: peer, headers: { ...headers, cookie: session, 'x-csrf-token': csrf } });
    // A direct client claiming the proxy's https origin is another origin for the server.
    const spoofed = await mutate(DIRECT_PEER, forwarded);
    expect(spoofed.statusCode).toBe(403);
    expect(spoofed.json().error.message).toContain('another origin');
    const signedOut = await mutate(PROXY_PEER, forwarded);
    expect(signedOut.statusCode).toBe(200);
    expect(cookieOf(signedOut)).toMatch(/Max-Age=0; Secure$/);

    // The same forwarded headers from an untrusted peer change nothing.
    expect((await signIn(behindProxy, DIRECT_PEER, forwarded)).statusCode).toBe(403);
    const direct = await signIn(behindProxy, DIRECT_PEER, { host: 'junction.example', 'x-forwarded-proto': 'https', origin: 'http://junction.example' });
    expect(direct.statusCode).toBe(200);
    expect(cookieOf(direct)).not.toContain('Secure');
  });
});

describe('with JUNCTION_PUBLIC_URL', () => {
  it('takes the public origin over the request, for CSRF and for the cookie', async () => {
    const fromPublic = await signIn(withPublicUrl, DIRECT_PEER, { host: '127.0.0.1:8080', origin: PUBLIC });
    expect(fromPublic.statusCode).toBe(200);
    expect(cookieOf(fromPublic)).toMatch(/; Secure$/);
    // The page's own Host matching its Origin is no longer enough: only the public origin is this server.
    const fromHost = await signIn(withPublicUrl, DIRECT_PEER, { host: 'evil.example', origin: 'http://evil.example' });
    expect(fromHost.statusCode).toBe(403);
  });

  it('gives links the public origin whatever Host the client sent', async () => {
    const app = Fastify();
    registerPublicOrigin(app, withPublicUrl.config.publicUrl);
    app.get('/link', async (request) => ({ origin: publicOrigin(request) }));
    const response = await app.inject({ method: 'GET', url: '/link', headers: { host: 'attacker.example', 'x-forwarded-host': 'attacker.example', 'x-forwarded-proto': 'http' } });
    expect(response.json()).toEqual({ origin: PUBLIC });
    await app.close();
  });

  it("puts the public origin in an invitation's link, never the Host the request named", async () => {
    const headers = { host: 'attacker.example', origin: PUBLIC };
    const session = cookieOf(await signIn(withPublicUrl, DIRECT_PEER, headers)).split(';')[0] ?? '';
    const me = await withPublicUrl.app.inject({ method: 'GET', url: '/console/api/me', remoteAddress: DIRECT_PEER, headers: { ...headers, cookie: session } });
    const csrf = me.json<{ csrf_token: string }>().csrf_token;
    const invited = await withPublicUrl.app.inject({
      method: 'POST',
      url: '/console/api/invitations',
      remoteAddress: DIRECT_PEER,
      headers: { ...headers, cookie: session, 'x-csrf-token': csrf },
      payload: { email: 'new-person@example.com', role: 'member' },
    });
    expect(invited.statusCode).toBe(201);
    expect(invited.json<{ invite_url: string }>().invite_url).toMatch(new RegExp(`^${PUBLIC}/invite\\?token=`));
  });
});

describe('the settings', () => {
  it('reads every form fastify takes and refuses the rest with the variable named', () => {
    const read = (env: Record<string, string>) => readEnvConfig({ JUNCTION_DATA_DIR: 'memory://', ...env });
    expect(read({}).trustProxy).toBe(false);
    expect(read({}).publicUrl).toBeUndefined();
    expect(read({ JUNCTION_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(read({ JUNCTION_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(read({ JUNCTION_TRUST_PROXY: 'loopback, 10.0.0.0/8,::1, fd00::/8' }).trustProxy).toEqual(['loopback', '10.0.0.0/8', '::1', 'fd00::/8']);
    expect(read({ JUNCTION_PUBLIC_URL: 'https://junction.example:8443/' }).publicUrl).toBe('https://junction.example:8443');

    for (const [name, value, says] of [
      ['JUNCTION_TRUST_PROXY', '10.0.0.0/40', "'10.0.0.0/40' is not an address or a range"],
      ['JUNCTION_TRUST_PROXY', 'proxy.internal', "'proxy.internal' is not an address or a range"],
      ['JUNCTION_PUBLIC_URL', 'junction.example', 'is not a URL'],
      ['JUNCTION_PUBLIC_URL', 'https://junction.example/console', 'without a path'],
      ['JUNCTION_PUBLIC_URL', 'ftp://junction.example', 'http or https origin'],
    ] as const) {
      expect(() => read({ [name]: value })).toThrow(EnvConfigError);
      expect(() => read({ [name]: value })).toThrow(new RegExp(`${name}: .*${says.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    }
    // A hop count trusts that many proxies in front, whatever their addresses.
    const hops = fastifyTrustProxy(1);
    expect(typeof hops === 'function' && [hops('203.0.113.9', 0), hops('203.0.113.9', 1)]).toEqual([true, false]);
  });
});

describe('GET /metrics without a token, behind a proxy', () => {
  let trustsEveryone: TestApp;
  beforeAll(async () => {
    trustsEveryone = await startTestApp({ JUNCTION_TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    await trustsEveryone?.close();
  });

  const metrics = (peer: string, headers: Record<string, string> = {}) => trustsEveryone.app.inject({ method: 'GET', url: '/metrics', remoteAddress: peer, headers });

  it('answers a local client, but neither a forged X-Forwarded-For nor the clients of a proxy on this host', async () => {
    expect((await metrics('127.0.0.1')).statusCode).toBe(200);
    // A remote client claiming to be local.
    expect((await metrics(DIRECT_PEER, { 'x-forwarded-for': '127.0.0.1' })).statusCode).toBe(403);
    // A proxy on this host forwarding a remote client.
    expect((await metrics('127.0.0.1', { 'x-forwarded-for': DIRECT_PEER })).statusCode).toBe(403);
  });
});
