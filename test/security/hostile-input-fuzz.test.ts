import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { issueSetupLink } from '../../src/console/session-routes.ts';
import { ORIGIN, sessionCookieOf, sessionFrom, signIn, type ConsoleSession } from '../support/console-session.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';
import { engineName } from '../support/test-database.ts';
import { hostileRequest, short, type HostileRequest } from './support/hostile-requests.ts';
import { routeInventory, type RouteEntry } from './support/route-inventory.ts';
import { seedBodies, seedParam } from './support/route-seeds.ts';
import { seededRandom } from './support/seeded-random.ts';

/**
 * Hostile input against every route the app serves (read from fastify, not listed by
 * hand), with every credential a route takes: no answer may be a 5xx, and every call
 * that reached a provider and was served has its usage row once billing settles.
 * FUZZ_SEED replays a run; FUZZ_REQUESTS changes its length.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_206);
const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const WEBSOCKET_MESSAGES = 300;
const PASSWORD = 'correct horse battery staple';
const CREDENTIAL_KINDS = ['none', 'model', 'agent', 'provisioning', 'console'] as const;
type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

const folders = runtimeFolders({
  echo: 'name: Echo\nmodel: openai/test-echo\ninstructions: Repeat.\n',
  helper: 'name: Helper\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\nmax_steps: 3\n',
});
let gateway: GatewayHarness;
const keys = {} as Record<'model' | 'agent' | 'provisioning', string>;
let consoleSession: ConsoleSession;

beforeAll(async () => {
  gateway = await startGateway(folders.env);
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100000', currency: 'USD' });
  for (const kind of ['model', 'agent', 'provisioning'] as const) keys[kind] = await gateway.key(kind);
  const link = await issueSetupLink(gateway.services.db, 'http://localhost', new Date());
  const token = new URL(String(link)).searchParams.get('token') as string;
  const setup = await gateway.app.inject({
    method: 'POST',
    url: '/console/api/setup',
    headers: { origin: ORIGIN, host: 'localhost:80' },
    payload: { token, email: 'owner@example.com', password: PASSWORD },
  });
  consoleSession = await sessionFrom(gateway.app, sessionCookieOf(setup));
});
afterAll(async () => {
  await gateway?.close();
  folders.remove();
});

function credentialHeaders(kind: CredentialKind): Record<string, string> {
  if (kind === 'none') return {};
  if (kind === 'console') return { cookie: consoleSession.cookie, 'x-csrf-token': consoleSession.csrf, origin: ORIGIN, host: 'localhost:80' };
  return { authorization: `Bearer ${keys[kind]}` };
}

/** The fuzz may sign the console user out (DELETE /session): sign in again, from an address it never used. */
async function keepConsoleSession(): Promise<void> {
  const me = await gateway.app.inject({ url: '/console/api/me', headers: { cookie: consoleSession.cookie } });
  if (me.json<{ signed_in: boolean }>().signed_in) return;
  consoleSession = await signIn(gateway.app, 'owner@example.com', PASSWORD);
}

const upstreams = () => [gateway.openai.requests, gateway.anthropic.requests, gateway.gemini.requests];
const upstreamCalls = (): number[] => upstreams().map((requests) => requests.length);
/** Token counting is free by design (no usage row); every other upstream call is billed or logged. */
const FREE_UPSTREAM_PATH = /count_tokens|:countTokens/;
const madeBillableCall = (before: number[]): boolean => upstreams().some((requests, index) => requests.slice(before[index]).some((request) => !FREE_UPSTREAM_PATH.test(request.path)));

type Served = { requestId: string; what: string };
type Outcome = { route: RouteEntry; credential: CredentialKind; request: HostileRequest; response: LightMyRequestResponse | undefined; failure?: string; ms: number };

let sent = 0;
async function send(route: RouteEntry, credential: CredentialKind, request: HostileRequest): Promise<Outcome> {
  sent += 1;
  const startedAt = performance.now();
  try {
    const response = await gateway.app.inject({
      method: request.method as 'GET',
      url: request.url,
      headers: request.headers,
      // Each request from its own address, so login rate limits never lock the fuzz's own sign-in out.
      remoteAddress: `10.${(sent >> 16) & 255}.${(sent >> 8) & 255}.${sent & 255}`,
      ...(request.payload !== undefined && { payload: request.payload }),
    });
    return { route, credential, request, response, ms: performance.now() - startedAt };
  } catch (error) {
    // The server cut the answer off (a client sees a reset connection): as much a failure as a 5xx.
    return { route, credential, request, response: undefined, failure: String(error), ms: performance.now() - startedAt };
  }
}

const isServed = (outcome: Outcome): boolean => outcome.response !== undefined && outcome.response.statusCode >= 200 && outcome.response.statusCode < 300;
/** Token counting calls a provider but is free by design, without a usage row. */
const countsTokens = (outcome: Outcome): boolean => FREE_UPSTREAM_PATH.test(outcome.request.url);
const servedCall = (outcome: Outcome): Served => ({
  requestId: String(outcome.response?.headers['x-request-id']),
  what: `${outcome.response?.statusCode} ${outcome.request.method} ${outcome.route.path} [${outcome.credential}] ${outcome.request.description}`,
});

type Planned = { route: RouteEntry; credential: CredentialKind };

/**
 * A well-formed request per route and credential, one at a time: the kinds that get
 * past authentication are the ones the route takes, and a route whose request reached a
 * provider is a model route, whose every later 2xx (token counts aside) must be billed.
 */
async function probeRoutes(routes: RouteEntry[], served: Served[], outcomes: Outcome[]): Promise<{ plan: Planned[]; callsUpstream: Set<RouteEntry> }> {
  const plan: Planned[] = [];
  const callsUpstream = new Set<RouteEntry>();
  for (const route of routes) {
    const kinds: CredentialKind[] = [];
    for (const kind of CREDENTIAL_KINDS) {
      const url = route.path.replace(/:([A-Za-z0-9_]+)|\*/g, (_match, name: string | undefined) => seedParam(route.path, name ?? '*')[0] ?? 'fuzz');
      const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? JSON.stringify(seedBodies(route.method, route.path)[0]) : undefined;
      const request: HostileRequest = {
        method: route.method,
        url,
        headers: { ...credentialHeaders(kind), ...(body && { 'content-type': 'application/json' }) },
        ...(body && { payload: body }),
        description: 'well-formed',
      };
      const before = upstreamCalls();
      const outcome = await send(route, kind, request);
      outcomes.push(outcome);
      if (upstreamCalls().some((count, index) => count > (before[index] ?? 0))) callsUpstream.add(route);
      if (isServed(outcome) && madeBillableCall(before)) served.push(servedCall(outcome));
      if (![401, 403].includes(outcome.response?.statusCode ?? 0)) kinds.push(kind);
      if (route.path.startsWith('/console/api/session')) await keepConsoleSession();
    }
    // A route that serves anyone (sign-in, health) is fuzzed once, not once per credential.
    for (const credential of kinds.length === 0 || kinds.includes('none') ? (['none'] as const) : kinds) plan.push({ route, credential });
  }
  return { plan, callsUpstream };
}

/** How many requests run at once. */
const CONCURRENCY = 16;

describe(`hostile input on ${engineName()}`, () => {
  it(`answers ${TOTAL} hostile requests across every route without a 5xx, and bills every served call`, async () => {
    const routes = routeInventory(gateway.app).filter((route) => route.method !== 'OPTIONS');
    expect(routes.length).toBeGreaterThan(50);
    const served: Served[] = [];
    const outcomes: Outcome[] = [];
    const { plan, callsUpstream } = await probeRoutes(routes, served, outcomes);

    const random = seededRandom(SEED);
    const queue = Array.from({ length: TOTAL }, (_, index) => {
      const planned = plan[index % plan.length] as Planned;
      // One request in ten with any credential at all, so refusals are fuzzed too.
      const credential = random.chance(0.1) ? random.pick(CREDENTIAL_KINDS) : planned.credential;
      return { route: planned.route, credential, request: hostileRequest(planned.route, credentialHeaders(credential), random) };
    });
    let sinceSessionCheck = 0;
    const started = performance.now();
    // Sign-in requests go alone (one may end the console session); the rest run in batches.
    const alone = (item: (typeof queue)[number]) => item.route.path.startsWith('/console/api/session');
    const rest = queue.filter((item) => !alone(item));
    const batches = [...queue.filter(alone).map((item) => [item])];
    for (let index = 0; index < rest.length; index += CONCURRENCY) batches.push(rest.slice(index, index + CONCURRENCY));
    for (const batch of batches) {
      const results = await Promise.all(batch.map((item) => send(item.route, item.credential, item.request)));
      outcomes.push(...results);
      served.push(...results.filter((outcome) => callsUpstream.has(outcome.route) && isServed(outcome) && !countsTokens(outcome)).map(servedCall));
      sinceSessionCheck += batch.length;
      if (batch.some(alone) || sinceSessionCheck >= 500) {
        await keepConsoleSession();
        sinceSessionCheck = 0;
      }
    }
    const elapsed = performance.now() - started;
    const slowest = outcomes.reduce((worst, outcome) => (outcome.ms > worst.ms ? outcome : worst));

    const failures = outcomes
      .filter((outcome) => !outcome.response || outcome.response.statusCode >= 500)
      .map(
        (outcome) =>
          `${outcome.response?.statusCode ?? 'cut off'} ${outcome.request.method} ${outcome.route.path} [${outcome.credential}] ${outcome.request.description} → ${short(outcome.response?.body.slice(0, 200) ?? outcome.failure ?? '')}`,
      );
    const slowestWhat = `${slowest.request.method} ${slowest.route.path} ${slowest.request.description}`;
    process.stdout.write(
      `fuzz on ${engineName()}: ${TOTAL} hostile requests (after ${outcomes.length - TOTAL} well-formed probes) over ${routes.length} routes (${callsUpstream.size} calling a provider) in ${(elapsed / 1000).toFixed(1)} s, ${served.length} served calls, slowest ${slowest.ms.toFixed(0)} ms (${slowestWhat.slice(0, 160)})\n`,
    );
    expect(failures, `responses ≥ 500:\n${failures.join('\n')}`).toEqual([]);
    // No request may hold the server for long (the bound leaves room for a loaded machine).
    expect(slowest.ms, slowestWhat).toBeLessThan(10_000);

    await gateway.settle();
    const ids = served.map((call) => call.requestId);
    const rows = await gateway.services.db.query<{ request_id: string }>('SELECT DISTINCT request_id FROM usage_log WHERE request_id = ANY($1)', [ids]);
    const billed = new Set(rows.rows.map((row) => row.request_id));
    const unbilled = served.filter((call) => !billed.has(call.requestId)).map((call) => `${call.requestId} ${call.what}`);
    expect(unbilled, `served calls without a usage row:\n${unbilled.join('\n')}`).toEqual([]);
  }, 600_000);

  it(`answers ${WEBSOCKET_MESSAGES} hostile Responses WebSocket messages without a 5xx error event, and bills every completed turn`, async () => {
    const socket = new WebSocket(`${gateway.baseUrl.replace('http', 'ws')}/agents/v1/responses`, { headers: credentialHeaders('agent') });
    const events: Array<{ type: string; status?: number }> = [];
    const waiters: Array<() => void> = [];
    socket.on('message', (data) => {
      events.push(JSON.parse(data.toString()) as (typeof events)[number]);
      waiters.shift()?.();
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const random = seededRandom(SEED + 1);
    const route: RouteEntry = { method: 'POST', path: '/agents/v1/responses' };
    const failures: string[] = [];
    let completed = 0;
    try {
      for (let index = 0; index < WEBSOCKET_MESSAGES; index += 1) {
        const { payload = '', description } = hostileRequest(route, {}, random);
        // A body becomes a response.create message; anything else is sent as it is.
        const text = typeof payload === 'string' && payload.startsWith('{') ? `{"type":"response.create",${payload.slice(1)}` : payload;
        const from = events.length;
        socket.send(text, { binary: Buffer.isBuffer(text) });
        let last: (typeof events)[number] | undefined;
        while (!(last = events.slice(from).find((event) => ['error', 'response.completed', 'response.failed', 'response.incomplete'].includes(event.type)))) {
          await new Promise<void>((resolve) => waiters.push(resolve));
        }
        if ((last.status ?? 0) >= 500 || last.type === 'response.failed') failures.push(`${last.type} ${last.status ?? ''} ${description}`);
        if (last.type === 'response.completed') completed += 1;
      }
    } finally {
      socket.close();
    }
    expect(failures, `failed turns:\n${failures.join('\n')}`).toEqual([]);
    await gateway.settle();
    // A WebSocket turn's calls carry the upgrade's request id and the turn's number.
    const rows = await gateway.services.db.query<{ turns: string }>(
      "SELECT count(DISTINCT request_id) AS turns FROM usage_log WHERE endpoint = 'agents.responses' AND request_id ~ '^req_[0-9a-f]+-[0-9]+$'",
    );
    expect(completed).toBeGreaterThan(0);
    expect(Number(rows.rows[0]?.turns)).toBe(completed);
  }, 300_000);
});
