import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { bearer } from '../support/test-app.ts';
import { type RegisteredRoute, registeredRoutes, type RouteKey } from './support/tenant-route-inventory.ts';
import { multipartBody } from './support/tenant-multipart-body.ts';
import { ROUTE_TABLE } from './support/tenant-route-table.ts';
import { type Caller, callersOf } from './support/tenant-callers.ts';
import { SERVER_KEY_SECRET, startTenantWorld, type Tenant, type TenantWorld } from './support/tenant-fixtures.ts';
import { type Finding, formatFindings, runMatrix } from './support/tenant-matrix-run.ts';

/**
 * Issue 63's tenant matrix: every route of the app (read from its router, so a new one
 * is covered or fails by name) × A's and B's owner, admin and member sessions, their
 * model, provisioning and agent keys, no credentials and a forged key × every object of
 * the other account named in the path, query or body. Nobody gets a 2xx on the other
 * account's object, no answer shows the other account's ids, names, emails, key labels
 * or texts (nor the server's secrets), and each route serves exactly the callers it is for.
 */

/**
 * Holes found by this suite in files other helpers own, left out of the assertion until
 * their fix lands (each is printed when it shows up). Empty this list when they do.
 */
const KNOWN_OPEN_IN_OTHER_AREAS: Array<{ route: RouteKey; problem: RegExp; owner: string; what: string }> = [];

let world: TenantWorld;
let routes: RegisteredRoute[];
let callers: Caller[];
let serverSecrets: string[];

beforeAll(async () => {
  world = await startTenantWorld();
  routes = registeredRoutes(world.gateway.app);
  callers = callersOf(world);
  const databaseName = world.gateway.config.databaseUrl ? new URL(world.gateway.config.databaseUrl).pathname.slice(1) : undefined;
  // The server's folders, absolute (file agents show their own path relative to the working directory, on purpose).
  serverSecrets = [...Object.values(UPSTREAM_KEYS), SERVER_KEY_SECRET, ...(databaseName ? [databaseName] : []), join(world.root, 'knowledge'), join(world.root, 'tools')];
});
afterAll(async () => world?.close());

function assertNoFindings(findings: Finding[]): void {
  const known = (finding: Finding) => KNOWN_OPEN_IN_OTHER_AREAS.some((entry) => entry.route === finding.route && entry.problem.test(finding.problem));
  const open = findings.filter(known);
  if (open.length > 0) console.warn(`known open (KNOWN_OPEN_IN_OTHER_AREAS), ${open.length} cases:\n${formatFindings(open)}`);
  expect(formatFindings(findings.filter((finding) => !known(finding)))).toBe('');
}

describe('the tenant matrix', () => {
  it('classifies every route the app registers, and only those', () => {
    const unclassified = routes.filter((route) => !ROUTE_TABLE[route.key]).map((route) => route.key);
    const stale = Object.keys(ROUTE_TABLE).filter((key) => !routes.some((route) => route.key === key));
    expect({ unclassified, stale }).toEqual({ unclassified: [], stale: [] });
    expect(routes.length).toBeGreaterThan(100);
  });

  it('serves each route to its callers only, and never the other account’s objects or data', async () => {
    const { findings, requests } = await runMatrix(world, routes, ROUTE_TABLE, callers, 'main', serverSecrets);
    expect(requests).toBeGreaterThan(routes.length * callers.length * 0.9);
    assertNoFindings(findings);
  });

  it('lets an account use a name the other account uses, without touching the other’s object', async () => {
    const { findings, requests } = await runMatrix(world, routes, ROUTE_TABLE, callers, 'own-namespace', serverSecrets);
    expect(requests).toBeGreaterThan(0);
    assertNoFindings(findings);
    for (const tenant of [world.a, world.b]) await expectIntact(tenant);
  });
});

describe('roles within one account', () => {
  it('gives a member no power to change keys, agents, knowledge or members of its own account', async () => {
    const { member, admin } = world.a.users;
    const a = world.a;
    const upload = multipartBody({ field: 'file', filename: 'member.md', content: '# member', type: 'text/markdown' });
    const attempts: Array<[string, string, unknown, Record<string, string>?]> = [
      ['POST', '/console/api/keys', { name: 'member' }],
      ['PATCH', `/console/api/keys/${a.keys.model.id}`, { disabled: true }],
      ['DELETE', `/console/api/keys/${a.keys.model.id}`, undefined],
      ['POST', '/console/api/provisioning-keys', { name: 'member' }],
      ['DELETE', `/console/api/provisioning-keys/${a.keys.provisioning.id}`, undefined],
      ['POST', '/console/api/agent-keys', { name: 'member' }],
      ['DELETE', `/console/api/agent-keys/${a.keys.agent.id}`, undefined],
      ['PUT', `/console/api/agents/${a.consoleAgent.id}`, { definition: { name: 'Member', model: 'openai/test-echo', instructions: 'member' } }],
      ['POST', `/console/api/agents/${a.consoleAgent.id}/rollback`, { version: 1 }],
      ['DELETE', `/console/api/agents/${a.consoleAgent.id}`, undefined],
      ['POST', '/console/api/knowledge/collections', { name: 'member-collection' }],
      ['POST', `/console/api/knowledge/collections/${a.knowledge.collection}/documents`, upload.payload, upload.headers],
      ['DELETE', `/console/api/knowledge/collections/${a.knowledge.collection}/documents/${a.knowledge.documentId}`, undefined],
      ['DELETE', `/console/api/knowledge/collections/${a.knowledge.collection}`, undefined],
      ['POST', '/console/api/members', { email: 'member-invites@tenant-a.example', role: 'member' }],
      ['PATCH', `/console/api/members/${admin.id}`, { role: 'member' }],
      ['PATCH', `/console/api/members/${member.id}`, { role: 'admin' }],
      ['DELETE', `/console/api/members/${admin.id}`, undefined],
    ];
    const served = [];
    for (const [method, url, payload, headers] of attempts) {
      const response = await member.session.request(method, url, payload, headers);
      if (response.statusCode !== 403) served.push(`${method} ${url}: ${response.statusCode}`);
    }
    expect(served).toEqual([]);
    await expectIntact(a);
  });

  it('lets an admin manage members below owner, and never touch an owner or make one', async () => {
    const { owner, admin, member } = world.a.users;
    const refused = [
      await admin.session.request('PATCH', `/console/api/members/${owner.id}`, { role: 'admin' }),
      await admin.session.request('DELETE', `/console/api/members/${owner.id}`),
      await admin.session.request('PATCH', `/console/api/members/${member.id}`, { role: 'owner' }),
      await admin.session.request('PATCH', `/console/api/members/${admin.id}`, { role: 'owner' }),
      await admin.session.request('POST', '/console/api/members', { email: 'made-owner@tenant-a.example', role: 'owner' }),
    ].map((response) => response.statusCode);
    expect(refused).toEqual([403, 403, 403, 403, 403]);
    expect((await admin.session.request('PATCH', `/console/api/members/${member.id}`, { role: 'admin' })).statusCode).toBe(200);
    expect((await admin.session.request('PATCH', `/console/api/members/${member.id}`, { role: 'member' })).statusCode).toBe(200);
    // The owner may make and unmake owners, but an account keeps one.
    expect((await owner.session.request('PATCH', `/console/api/members/${admin.id}`, { role: 'owner' })).statusCode).toBe(200);
    expect((await owner.session.request('PATCH', `/console/api/members/${admin.id}`, { role: 'admin' })).statusCode).toBe(200);
    expect((await owner.session.request('PATCH', `/console/api/members/${owner.id}`, { role: 'admin' })).statusCode).toBe(409);
    await expectIntact(world.a);
  });
});

/** The tenant's objects, read by its own owner and keys, are what the fixtures made. */
async function expectIntact(tenant: Tenant): Promise<void> {
  const owner = tenant.users.owner.session;
  const exported = await owner.request('GET', `/console/api/agents/${tenant.consoleAgent.id}/export`);
  expect(exported.body).toContain(tenant.consoleAgent.instructions);
  const knowledge = await owner.request('GET', '/console/api/knowledge');
  expect(knowledge.body).toContain(tenant.knowledge.path);
  const members = (await owner.request('GET', '/console/api/members')).json<{ data: Array<{ user_id: string; role: string }> }>().data;
  for (const role of ['owner', 'admin', 'member'] as const) expect(members.find((entry) => entry.user_id === tenant.users[role].id)?.role).toBe(role);
  for (const kind of ['model', 'provisioning', 'agent'] as const) {
    const listed = await owner.request('GET', `/console/api/keys?kind=${kind}`);
    expect(listed.json<{ data: Array<{ id: string; disabled: boolean }> }>().data.find((key) => key.id === tenant.keys[kind].id)).toMatchObject({ disabled: false });
  }
  const conversation = await world.gateway.app.inject({ url: `/agents/v1/conversations/${tenant.conversation.id}`, headers: bearer(tenant.keys.agent.plain) });
  expect(conversation.statusCode).toBe(200);
  const response = await world.gateway.app.inject({ url: `/agents/v1/responses/${tenant.responseId}`, headers: bearer(tenant.keys.agent.plain) });
  expect(response.statusCode).toBe(200);
}
