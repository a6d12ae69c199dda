import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { leftoverSegments, readSegment } from '../../src/billing/settlement-file-journal.ts';
import { sessionCookieOf } from '../support/console-session.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { type ScratchCluster, scratchClusterAvailable, startScratchCluster } from '../support/scratch-cluster.ts';

/**
 * Every way a PostgreSQL server can refuse the gateway's connections is an outage: each
 * route that needs the database answers 503 with Retry-After within 10 s (never 500, 401
 * or a hang), calls on a cached key keep being served and are held in the settlement file
 * journal while the database refuses them, and their usage rows land once it takes them
 * again, without a restart. Runs on a PostgreSQL cluster of its own (never the shared
 * server), in the PostgreSQL pass of the suite; PGlite has no connections to refuse.
 */
const enabled = Boolean(process.env.DATABASE_URL) && scratchClusterAvailable();
const DATABASE = 'junction_refusals';
const ROLE = 'junction_app';
const PASSWORD = 'refusals password 1';
/** No route may keep a client waiting longer than this during an outage. */
const ROUTE_BOUND_MS = 10_000;

let cluster: ScratchCluster;
let gateway: GatewayHarness;
let journalDir: string;
let superuserUrl: string;

/** A statement as the cluster's superuser, on `database`. */
async function asSuperuser(sql: string, database = 'postgres'): Promise<void> {
  const url = new URL(superuserUrl);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Cuts the gateway's open connections and waits for each to end, so the refusal applies to the new ones it must make. */
const cutConnections = (database = DATABASE) => asSuperuser(`SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`);

/** `journalWithinMs`: how soon the calls served must be in the file journal (a hung server first has its statements time out). */
type Refusal = { name: string; refuse(): Promise<void>; restore(): Promise<void>; journalWithinMs?: number };

const REFUSALS: Refusal[] = [
  {
    name: 'database not accepting connections (55000)',
    refuse: async () => {
      await asSuperuser(`ALTER DATABASE ${DATABASE} ALLOW_CONNECTIONS false`);
      await cutConnections();
    },
    restore: () => asSuperuser(`ALTER DATABASE ${DATABASE} ALLOW_CONNECTIONS true`),
  },
  {
    name: 'database renamed away (3D000)',
    refuse: async () => {
      await asSuperuser(`ALTER DATABASE ${DATABASE} ALLOW_CONNECTIONS false`);
      await cutConnections();
      await asSuperuser(`ALTER DATABASE ${DATABASE} RENAME TO ${DATABASE}_away`);
      await asSuperuser(`ALTER DATABASE ${DATABASE}_away ALLOW_CONNECTIONS true`);
    },
    restore: () => asSuperuser(`ALTER DATABASE ${DATABASE}_away RENAME TO ${DATABASE}`),
  },
  {
    name: 'role may not log in (28000)',
    refuse: async () => {
      await asSuperuser(`ALTER ROLE ${ROLE} NOLOGIN`);
      await cutConnections();
    },
    restore: () => asSuperuser(`ALTER ROLE ${ROLE} LOGIN`),
  },
  {
    name: 'role connection limit reached (53300)',
    refuse: async () => {
      await asSuperuser(`ALTER ROLE ${ROLE} CONNECTION LIMIT 0`);
      await cutConnections();
    },
    restore: () => asSuperuser(`ALTER ROLE ${ROLE} CONNECTION LIMIT -1`),
  },
  {
    name: 'server stopped (ECONNREFUSED)',
    refuse: () => cluster.stop(),
    restore: () => cluster.start(),
  },
  {
    name: 'server hung, connections open (SIGSTOP)',
    refuse: () => cluster.pause(),
    restore: () => cluster.resume(),
    journalWithinMs: 10_000,
  },
];

let hotKey: string;
let hotKeyId: string;
let provisioningKey: string;
let sessionCookie: string;
/** Successful chat calls on the hot key so far, each of which must have its usage row. */
let served = 0;

beforeAll(async () => {
  if (!enabled) return;
  cluster = await startScratchCluster();
  superuserUrl = cluster.url;
  await asSuperuser(`CREATE ROLE ${ROLE} LOGIN`);
  await asSuperuser(`CREATE DATABASE ${DATABASE} OWNER ${ROLE}`);
  await asSuperuser('CREATE EXTENSION vector', DATABASE);
  const url = new URL(cluster.url);
  url.username = ROLE;
  url.pathname = `/${DATABASE}`;
  journalDir = mkdtempSync(join(tmpdir(), 'junction-refusals-journal-'));
  gateway = await startGateway({ DATABASE_URL: url.toString(), JUNCTION_JOURNAL_DIR: journalDir, JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: PASSWORD, role: 'owner' });
  hotKey = await gateway.key('model', { totalLimitMicros: 50_000_000 });
  provisioningKey = await gateway.key('provisioning');
  const keyView = await fetch(`${gateway.baseUrl}/v1/key`, { headers: { authorization: `Bearer ${hotKey}` } });
  hotKeyId = ((await keyView.json()) as { data: { id: string } }).data.id;
  expect((await fetch(`${gateway.baseUrl}/v1/usage`, { headers: { authorization: `Bearer ${provisioningKey}` } })).status).toBe(200);
  sessionCookie = sessionCookieOf(
    await gateway.app.inject({
      method: 'POST',
      url: '/console/api/session',
      headers: { origin: 'http://localhost:80', host: 'localhost:80' },
      payload: { email: 'owner@example.com', password: PASSWORD },
    }),
  );
}, 60_000);

afterAll(async () => {
  if (!enabled) return;
  await gateway?.close().catch(() => undefined);
  await cluster?.destroy();
  rmSync(journalDir, { recursive: true, force: true });
});

/** One hot-key chat call: served (200), or refused with 503 and Retry-After when its lease cannot be renewed. */
async function hotCall(): Promise<{ status: number; retryAfter: string | null }> {
  const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hotKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'refusal test' }] }),
  });
  await response.text();
  if (response.status === 200) served += 1;
  return { status: response.status, retryAfter: response.headers.get('retry-after') };
}

type Answer = { route: string; status: number; retryAfter: string | null; ms: number; body: string };

/** The representative routes that need the database, asked at once; each answer timed. */
async function askRoutesNeedingTheDatabase(coldKey: string): Promise<Answer[]> {
  const post = (body: unknown, headers: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const requests: Array<[string, string, RequestInit]> = [
    ['GET /v1/key', '/v1/key', { headers: { authorization: `Bearer ${hotKey}` } }],
    ['unseen key, /v1/chat/completions', '/v1/chat/completions', post({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'x' }] }, { authorization: `Bearer ${coldKey}` })],
    [
      'unseen key, /v1/messages',
      '/v1/messages',
      post({ model: 'anthropic/test-echo', max_tokens: 50, messages: [{ role: 'user', content: 'x' }] }, { 'x-api-key': coldKey, 'anthropic-version': '2023-06-01' }),
    ],
    ['unseen key, /v1beta generateContent', '/v1beta/models/google/test-echo:generateContent', post({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }, { 'x-goog-api-key': coldKey })],
    ['GET /v1/usage', '/v1/usage', { headers: { authorization: `Bearer ${provisioningKey}` } }],
    ['GET /console/api/me', '/console/api/me', { headers: { cookie: sessionCookie } }],
    ['sign-in', '/console/api/session', post({ email: 'owner@example.com', password: PASSWORD }, { origin: gateway.baseUrl })],
  ];
  return Promise.all(
    requests.map(async ([route, path, init]) => {
      const started = Date.now();
      const response = await fetch(`${gateway.baseUrl}${path}`, { ...init, signal: AbortSignal.timeout(ROUTE_BOUND_MS + 5_000) });
      const body = await response.text();
      return { route, status: response.status, retryAfter: response.headers.get('retry-after'), ms: Date.now() - started, body };
    }),
  );
}

/** Usage rows of `keyId` in the database, read as the superuser (the gateway's role may be the one refused). */
async function usageRows(keyId: string): Promise<number> {
  const url = new URL(superuserUrl);
  url.pathname = `/${DATABASE}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>("SELECT count(*) AS n FROM usage_log WHERE key_id = $1 AND status = 'success'", [keyId]);
    return Number(result.rows[0]?.n);
  } finally {
    await client.end();
  }
}

/** Settlements of `keyId` the settlement file journal holds on disk now. */
async function journaledFor(keyId: string): Promise<number> {
  let count = 0;
  for (const file of await leftoverSegments(join(journalDir, 'settling'))) {
    for (const settlement of await readSegment(file).catch(() => [])) if (settlement.keyId === keyId) count += 1;
  }
  return count;
}

/**
 * Whether the gateway's LISTEN connection is back after an outage: on reconnecting it drops
 * every cached key and lease (a change may have been missed), so a scenario warms its cache after that.
 */
async function listenerConnected(): Promise<boolean> {
  const url = new URL(superuserUrl);
  url.pathname = `/${DATABASE}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND usename = $2 AND state = 'idle' AND query LIKE 'LISTEN %'", [DATABASE, ROLE]);
    return Number(result.rows[0]?.n) > 0;
  } finally {
    await client.end();
  }
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!enabled)('database refusals (PostgreSQL only: PGlite has no connections to refuse)', () => {
  for (const refusal of REFUSALS) {
    it(`${refusal.name}: 503 with Retry-After everywhere, cached-key calls journaled and billed after recovery`, async () => {
      const coldKey = await gateway.key('model');
      expect(await waitFor(listenerConnected, 5_000)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let index = 0; index < 3; index += 1) expect((await hotCall()).status).toBe(200);
      const servedBefore = served;

      await refusal.refuse();
      let restored = false;
      try {
        const outageCalls = [await hotCall(), await hotCall(), await hotCall()];
        const answers = await askRoutesNeedingTheDatabase(coldKey);
        const servedInOutage = served - servedBefore;
        // Held on disk while the database refuses them: a kill -9 now would lose none.
        const journaled = await waitFor(async () => (await journaledFor(hotKeyId)) >= servedInOutage, refusal.journalWithinMs ?? 2_000);

        for (const call of outageCalls) if (call.status !== 200) expect(call).toEqual({ status: 503, retryAfter: expect.any(String) });
        for (const answer of answers) {
          expect({ route: answer.route, status: answer.status, retryAfter: answer.retryAfter !== null }, answer.body).toEqual({ route: answer.route, status: 503, retryAfter: true });
          expect(answer.ms, answer.route).toBeLessThan(ROUTE_BOUND_MS);
        }
        expect(answers.find((answer) => answer.route === 'GET /v1/key')?.body).toContain('service_unavailable');
        const readiness = await fetch(`${gateway.baseUrl}/readyz`);
        expect(readiness.status).toBe(503);
        expect(readiness.headers.get('retry-after')).toBeTruthy();
        expect(await readiness.json()).toMatchObject({ failing: ['database', 'migrations'], checks: { database: { detail: expect.stringMatching(/^unreachable: |^no answer within/) } } });
        expect(servedInOutage, JSON.stringify(outageCalls)).toBeGreaterThan(0);
        expect(journaled).toBe(true);

        await refusal.restore();
        restored = true;
        // Every call served so far lands without a restart.
        const landed = await waitFor(async () => (await usageRows(hotKeyId)) === served, 5_000);
        expect({ landed, rows: await usageRows(hotKeyId), served }).toEqual({ landed: true, rows: served, served });
        expect(await waitFor(async () => (await journaledFor(hotKeyId)) === 0, 3_000)).toBe(true);
        expect((await hotCall()).status).toBe(200);
      } finally {
        if (!restored) await refusal.restore();
      }
    }, 40_000);
  }
});
