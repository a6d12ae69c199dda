import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { createServices, type Services } from '../../src/assembly/services.ts';
import { worstCaseChatCost } from '../../src/catalog/costs.ts';
import { resolveModel } from '../../src/catalog/lookup.ts';
import { readEnvConfig } from '../../src/config/env-config.ts';
import { estimateInputTokens } from '../../src/pipeline/estimate-input-tokens.ts';
import { startFakeOpenAIUpstream } from '../support/fake-openai-upstream.ts';
import { UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { type RoundRobinProxy, startRoundRobinProxy } from '../support/round-robin-proxy.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { createScratchDatabase } from '../support/test-database.ts';
import { redisAnswers, TEST_REDIS_URL } from '../support/redis-probe.ts';

/**
 * Three Junction hosts, each with its own data folder, on one PostgreSQL database behind a
 * round-robin balancer that follows `/readyz`: what one host does, the three do together.
 * A console session works on whichever host answers; an agent, a knowledge upload and a
 * key made through one serve on all; an approval sent to another host than the one that
 * paused the run resumes it once; a background run whose host is killed mid-step is
 * finished by another host and billed once, also after the dead host comes back; a key's
 * requests per minute and spend limit hold over the three, without Redis and with it.
 * PGlite is one process by design, so this runs in the PostgreSQL pass only.
 */
const enabled = Boolean(process.env.DATABASE_URL);
const REDIS_URL = TEST_REDIS_URL;
const HOSTS = 3;
const OWNER = { email: 'owner@example.com', password: 'three hosts owner 1' };
const SLOW_MODEL = 'openai/test-slow';
const MAX_TOKENS = 200;
const MESSAGE = 'count slowly please';
// Sixty words echoed after the slow model's thirty: a step of about five seconds, journaled after one.
const LONG_STORY = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ');

const redisAvailable = enabled && (await redisAnswers());

const folders = runtimeFolders({});
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let dataDir: string;
let admin: Services;
let proxy: RoundRobinProxy;
let hosts: ServerProcess[] = [];

const hostEnv = (index: number, redis: boolean): NodeJS.ProcessEnv => {
  const { REDIS_URL: _none, DATABASE_URL: _base, ...rest } = process.env;
  return {
    ...rest,
    ...folders.env,
    ...(redis && { REDIS_URL }),
    DATABASE_URL: database.url,
    PORT: '0',
    LOG_LEVEL: 'info',
    JUNCTION_DATA_DIR: join(dataDir, `host-${index}`),
    OPENAI_API_KEY: UPSTREAM_KEYS.openai,
    OPENAI_BASE_URL: upstream.url,
    // A run's lease runs out two seconds after its host stops renewing it; the host's own budget leases wait the default thirty.
    JUNCTION_RUN_LEASE_SECONDS: '2',
  };
};

const startHosts = (redis: boolean): Promise<ServerProcess[]> => Promise.all(Array.from({ length: HOSTS }, (_, index) => startServerProcess(hostEnv(index, redis))));

async function stopHosts(): Promise<void> {
  await Promise.all(
    hosts.map(async (host) => {
      if (host.child.exitCode !== null || host.child.signalCode !== null) return;
      const exited = once(host.child, 'exit');
      host.child.kill('SIGTERM');
      await exited;
    }),
  );
}

beforeAll(async () => {
  if (!enabled) return;
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai, slowChunkDelayMs: 60 });
  database = await createScratchDatabase(process.env.DATABASE_URL as string, 'junction_hosts');
  dataDir = mkdtempSync(join(tmpdir(), 'junction-three-hosts-'));
  // The operator's side, as the CLI runs it: migrates the store once, before the hosts start.
  const adminEnv = { ...hostEnv(HOSTS, false), LOG_LEVEL: 'silent' };
  admin = await createServices(readEnvConfig(adminEnv), { env: adminEnv, registerProcess: false, loadAgents: false });
  await runAdminCommand(admin, { command: 'credits.grant', amount: '100', currency: 'USD' });
  await runAdminCommand(admin, { command: 'users.create', email: OWNER.email, password: OWNER.password, role: 'owner' });
  hosts = await startHosts(false);
  proxy = await startRoundRobinProxy(hosts.map((host) => host.url));
}, 120_000);
afterAll(async () => {
  if (!enabled) return folders.remove();
  await proxy?.close();
  await stopHosts();
  await admin?.close();
  await upstream?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
  folders.remove();
});

async function waitFor<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}

const query = async <Row extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<Row[]> => (await admin.db.query<Row>(sql, params)).rows;

/** The owner's console session, signed in through the balancer: its cookie and CSRF token. */
type Session = { cookie: string; csrf: string };
let session: Session;
let agentKey = '';

/** A console call through the balancer, as the browser makes it (same origin, CSRF token on writes). */
async function consoleCall(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const isJson = body !== undefined && !Buffer.isBuffer(body);
  const response = await fetch(`${proxy.url}/console/api${path}`, {
    method,
    headers: {
      cookie: session.cookie,
      origin: proxy.url,
      'x-csrf-token': session.csrf,
      ...(isJson && { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body !== undefined && { body: isJson ? JSON.stringify(body) : (body as Buffer) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** A console read sent straight to one host, past the balancer. */
const consoleReadOn = async <T>(host: ServerProcess, path: string, cookie = session.cookie): Promise<T> => (await (await fetch(`${host.url}/console/api${path}`, { headers: { cookie } })).json()) as T;

const agentHeaders = () => ({ authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' });

type Item = { type: string; id: string; name?: string; output?: string; content?: Array<{ text: string }> };
type Resource = { id: string; status: string; output: Item[]; usage: { input_tokens: number; output_tokens: number; cost: number } | null };

const createResponse = async (baseUrl: string, body: Record<string, unknown>): Promise<{ status: number; json: Resource }> => {
  const response = await fetch(`${baseUrl}/agents/v1/responses`, { method: 'POST', headers: agentHeaders(), body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Resource };
};

/** Polls one host (or the balancer) until the background response has ended. */
const ended = (baseUrl: string, id: string): Promise<Resource> =>
  waitFor(async () => {
    const resource = (await (await fetch(`${baseUrl}/agents/v1/responses/${id}`, { headers: agentHeaders() })).json()) as Resource;
    return resource.status === 'queued' || resource.status === 'in_progress' ? undefined : resource;
  }, `the background response ${id} to end`);

/** One chat call through the balancer with a model key; its status once the whole answer (or refusal) is read. */
async function chat(key: string, model: string, content: string, stream = false): Promise<number> {
  const response = await fetch(`${proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: MAX_TOKENS, stream, messages: [{ role: 'user', content }] }),
    signal: AbortSignal.timeout(60_000),
  });
  await response.arrayBuffer();
  return response.status;
}

const served = (statuses: number[]): number => statuses.filter((status) => status === 200).length;

function worstCaseMicros(): number {
  const model = resolveModel(admin.catalog, SLOW_MODEL);
  if (!model) throw new Error('test model missing');
  const inputTokens = estimateInputTokens({ messages: [{ role: 'user', content: [{ type: 'text', text: MESSAGE }] }] });
  return worstCaseChatCost(model, { inputTokens, maxOutputTokens: MAX_TOKENS });
}

/** A model key made in the console through the balancer. */
async function consoleKey(settings: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const created = await consoleCall('POST', '/keys', { name: 'three hosts', ...settings });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return { id: (created.json.data as { id: string }).id, key: created.json.key as string };
}

/** Thirty calls at once through the balancer on a key of rpm 10 are served ten times; thirty streams on a key limited to ten worst cases never pass it. */
async function limitsHoldAcrossHosts(variant: 'no Redis' | 'Redis'): Promise<void> {
  const limited = await consoleKey({ rate_limit_rpm: 10 });
  const echoesBefore = upstream.attempts('test-echo');
  const statuses = await Promise.all(Array.from({ length: 30 }, (_, index) => chat(limited.key, 'openai/test-echo', `rpm call ${index}`)));
  expect(served(statuses)).toBe(10);
  expect(statuses.filter((status) => status === 429)).toHaveLength(20);
  expect(upstream.attempts('test-echo') - echoesBefore).toBe(10);
  // The window is full on every host, not only where it filled.
  for (const host of hosts) {
    const refused = await fetch(`${host.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${limited.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'one more' }] }),
    });
    await refused.arrayBuffer();
    expect(refused.status).toBe(429);
  }
  // The window was where the variant keeps it: a row in the database, or a Redis key and no row.
  const windows = await query<{ used: number }>('SELECT used FROM key_rate_windows WHERE key_id = $1', [limited.id]);
  if (variant === 'no Redis') expect(windows.map((row) => row.used)).toEqual([10]);
  else {
    expect(windows).toEqual([]);
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.exists(`junction-rpm-10:${limited.id}`)).toBe(1);
    } finally {
      redis.disconnect();
    }
  }

  const limitMicros = 10 * worstCaseMicros();
  const capped = await consoleKey({ total_limit_usd: limitMicros / 1e6 });
  const slowBefore = upstream.attempts('test-slow');
  const streams = await Promise.all(Array.from({ length: 30 }, () => chat(capped.key, SLOW_MODEL, MESSAGE, true)));
  const billed = await waitFor(async () => {
    const [row] = await query<{ rows: number; cost: string | null; spend: string }>(
      `SELECT (SELECT count(*)::int FROM usage_log WHERE key_id = $1 AND status = 'success') AS rows,
              (SELECT sum(cost_micros) FROM usage_log WHERE key_id = $1) AS cost,
              (SELECT spend_total_micros FROM api_keys WHERE id = $1) AS spend`,
      [capped.id],
    );
    return row && row.rows === served(streams) && Number(row.spend) === Number(row.cost ?? 0) ? { rows: row.rows, spend: Number(row.spend) } : undefined;
  }, 'the streams’ usage rows');
  console.log(
    `[three hosts, ${variant}] rpm 10: ${served(statuses)} of 30 served; 30 streams on a limit of 10 worst cases: ${served(streams)} served, spend ${billed.spend} of ${limitMicros} µUSD; routed ${proxy.routed.join('/')}`,
  );
  // Budget a host holds but cannot use (less than one worst case) idles until its lease returns: at most 10, nearly all.
  expect(served(streams)).toBeLessThanOrEqual(10);
  expect(served(streams)).toBeGreaterThanOrEqual(7);
  expect(streams.filter((status) => status !== 200).every((status) => status === 403)).toBe(true);
  expect(upstream.attempts('test-slow') - slowBefore).toBe(served(streams));
  expect(billed.spend).toBeLessThanOrEqual(limitMicros);
}

describe.skipIf(!enabled)('three hosts on one PostgreSQL behind a balancer, no Redis (PostgreSQL only: PGlite is one process)', () => {
  it('keeps a console session on every host; an agent, an upload and a key made through one serve on all', async () => {
    const signedIn = await fetch(`${proxy.url}/console/api/session`, {
      method: 'POST',
      headers: { origin: proxy.url, 'content-type': 'application/json' },
      body: JSON.stringify(OWNER),
    });
    expect(await signedIn.json()).toEqual({ ok: true });
    const cookie = /junction_session=[^;]+/.exec(signedIn.headers.get('set-cookie') ?? '')?.[0] ?? '';
    expect(cookie).not.toBe('');
    // Each host knows the session another host started.
    const seen = await Promise.all(hosts.map((host) => consoleReadOn<{ signed_in: boolean; user?: { email: string }; csrf_token?: string }>(host, '/me', cookie)));
    expect(seen.map((me) => [me.signed_in, me.user?.email])).toEqual(hosts.map(() => [true, OWNER.email]));
    session = { cookie, csrf: seen[0]?.csrf_token ?? '' };

    expect((await consoleCall('POST', '/knowledge/collections', { name: 'handbook' })).status).toBe(201);
    const boundary = '----junction-three-hosts';
    const upload = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="returns.md"\r\nContent-Type: application/octet-stream\r\n\r\n` +
        '# Returns\n\nCustomers may return a kettle within 45 days of delivery for a full refund.\n' +
        `\r\n--${boundary}--\r\n`,
    );
    expect((await consoleCall('POST', '/knowledge/collections/handbook/documents', upload, { 'content-type': `multipart/form-data; boundary=${boundary}` })).status).toBe(201);
    for (const host of hosts) {
      const found = await consoleReadOn<{ hits: Array<{ path: string; content: string }> }>(host, `/knowledge/search?collection=handbook&q=${encodeURIComponent('kettle refund')}`);
      expect(found.hits[0]?.path).toBe('returns.md');
      expect(found.hits[0]?.content).toContain('45 days');
    }

    const agents = {
      desk: { name: 'Returns desk', model: 'openai/test-echo', instructions: 'Answer from the handbook.', knowledge: ['handbook'] },
      approver: { name: 'Approver', model: 'openai/test-tool', instructions: 'Use your tool.', tools: [{ name: 'echo_upper', require_approval: true }] },
      talker: { name: 'Talker', model: SLOW_MODEL, instructions: 'Talk slowly.' },
    };
    for (const [id, definition] of Object.entries(agents)) {
      const saved = await consoleCall('PUT', `/agents/${id}`, { definition, change_note: 'made behind the balancer' });
      expect(saved.status, JSON.stringify(saved.json)).toBe(201);
    }
    const key = await consoleCall('POST', '/agent-keys', { name: 'three hosts' });
    expect(key.status).toBe(201);
    agentKey = key.json.key as string;

    for (const [index, host] of hosts.entries()) {
      const question = `How long can I return a kettle? Asked on host ${index}.`;
      const answer = await fetch(`${host.url}/agents/v1/chat/completions`, {
        method: 'POST',
        headers: agentHeaders(),
        body: JSON.stringify({ model: 'desk', messages: [{ role: 'user', content: question }] }),
      });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { agent_version?: string }).agent_version).toBe('v1');
      const sent = upstream.requests.filter((request) => JSON.stringify(request.body).includes(question));
      expect(sent).toHaveLength(1);
      expect(JSON.stringify(sent[0]?.body)).toContain('45 days');
    }
  }, 60_000);

  it('resumes a background run paused for approval on one host with the approval sent to another, once', async () => {
    const created = await createResponse(hosts[0]?.url as string, { model: 'approver', input: 'shout fake', background: true });
    expect(created.json.status).toBe('queued');
    const paused = await ended(hosts[1]?.url as string, created.json.id);
    const request = paused.output.find((item) => item.type === 'junction:approval_request');
    expect(request, JSON.stringify(paused)).toMatchObject({ name: 'echo_upper' });

    const answer = { type: 'junction:approval_response', approval_request_id: request?.id, approve: true };
    // Approval answers resume in the foreground (a background resume is refused by design).
    const resumed = await createResponse(hosts[2]?.url as string, { model: 'approver', previous_response_id: paused.id, input: [answer] });
    expect(resumed.status, JSON.stringify(resumed.json)).toBe(200);
    expect(resumed.json.status).toBe('completed');
    // Every host serves the resumed response as stored.
    const done = (await (await fetch(`${hosts[0]?.url}/agents/v1/responses/${resumed.json.id}`, { headers: agentHeaders() })).json()) as Resource;
    expect(done.status).toBe('completed');
    expect(done.output.find((item) => item.type === 'junction:tool_call')?.output).toBe('FAKE');
    expect(done.output.at(-1)?.content?.[0]?.text).toBe('Tool echo_upper returned: FAKE');
    // The pause was taken: the same answer through the third host is refused, and the tool ran once.
    expect((await createResponse(hosts[1]?.url as string, { model: 'approver', previous_response_id: paused.id, input: [answer] })).status).toBe(400);
    const tools = await waitFor(async () => {
      const [row] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM usage_log WHERE requested_model = 'tool:echo_upper'`);
      return row && row.n > 0 ? row.n : undefined;
    }, 'the tool’s usage row');
    expect(tools).toBe(1);
  }, 60_000);

  it('holds rate_limit_rpm and a spend limit exactly over the three hosts under concurrent load', async () => {
    await limitsHoldAcrossHosts('no Redis');
  }, 60_000);

  it('finishes a background run whose host is killed mid-step on another host, billed once', async () => {
    const first = hosts[0] as ServerProcess;
    const slowBefore = upstream.attempts('test-slow');
    const created = await createResponse(first.url, { model: 'talker', input: LONG_STORY, background: true });
    expect(created.json.status).toBe('queued');
    const runId = await waitFor(async () => (await query<{ id: string }>('SELECT id FROM agent_runs WHERE response_id = $1', [created.json.id]))[0]?.id, 'the run');
    // The step is under way on the first host once its open call is journaled in the store.
    await waitFor(async () => ((await query<{ n: number }>('SELECT count(*)::int AS n FROM open_calls WHERE agent_run_id = $1', [runId]))[0]?.n ? true : undefined), 'the open call');
    const killed = once(first.child, 'exit');
    first.child.kill('SIGKILL');
    await killed;
    expect(upstream.attempts('test-slow') - slowBefore).toBe(1);

    const done = await ended(proxy.url, created.json.id);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(upstream.attempts('test-slow') - slowBefore).toBe(2);
    const holder = (await query<{ attempts: number }>('SELECT attempts FROM agent_runs WHERE id = $1', [runId]))[0];
    expect(holder?.attempts).toBeGreaterThanOrEqual(2);

    // The killed host comes back on its own data folder (its settlement journal replays): nothing is billed again.
    const restarted = await startServerProcess(hostEnv(0, false));
    hosts[0] = restarted;
    proxy.setBackend(0, restarted.url);
    await waitFor(async () => ((await fetch(`${restarted.url}/readyz`)).status === 200 ? true : undefined), 'the restarted host');

    type Row = { status: string; input_tokens: number; output_tokens: number; cost_micros: string };
    const rows = await query<Row>('SELECT status, input_tokens, output_tokens, cost_micros FROM usage_log WHERE agent_run_id = $1 ORDER BY status', [runId]);
    expect(rows.map((row) => row.status)).toEqual(['interrupted', 'success']);
    const sum = (field: 'input_tokens' | 'output_tokens' | 'cost_micros') => rows.reduce((total, row) => total + Number(row[field]), 0);
    console.log(`[three hosts] killed mid-step: rows ${rows.map((row) => `${row.status} ${row.cost_micros} µUSD`).join(', ')}; response cost ${done.usage?.cost}`);
    expect(done.usage?.input_tokens).toBe(sum('input_tokens'));
    expect(done.usage?.output_tokens).toBe(sum('output_tokens'));
    expect(Math.round((done.usage?.cost ?? 0) * 1_000_000)).toBe(sum('cost_micros'));
    const stored = await query<{ cost_micros: string }>('SELECT cost_micros FROM responses WHERE id = $1', [created.json.id]);
    expect(Number(stored[0]?.cost_micros)).toBe(sum('cost_micros'));
    expect((await query<{ n: number }>('SELECT count(*)::int AS n FROM open_calls WHERE agent_run_id = $1', [runId]))[0]?.n).toBe(0);
    // The agent key's spend is its usage rows, each once.
    const [spend] = await query<{ spend: string; cost: string }>(
      `SELECT k.spend_total_micros AS spend, (SELECT sum(cost_micros) FROM usage_log u WHERE u.key_id = k.id) AS cost
       FROM api_keys k WHERE k.id = (SELECT key_id FROM usage_log WHERE agent_run_id = $1 LIMIT 1)`,
      [runId],
    );
    expect(Number(spend?.spend)).toBe(Number(spend?.cost));
  }, 90_000);
});

// After the file's first part: the same balancer, session and agent key, on three new hosts that share Redis.
describe.skipIf(!redisAvailable)('three hosts on one PostgreSQL behind a balancer, with Redis (PostgreSQL and a Redis that answers)', () => {
  it('holds rate_limit_rpm and a spend limit exactly over the three hosts under concurrent load', async () => {
    await stopHosts();
    hosts = await startHosts(true);
    const before = [...proxy.routed];
    for (const [index, host] of hosts.entries()) proxy.setBackend(index, host.url);
    // The balancer routes to a replaced backend once its probe found it ready: until each has had a request.
    await waitFor(async () => {
      await (await fetch(`${proxy.url}/readyz`)).arrayBuffer();
      return proxy.routed.every((count, index) => count > (before[index] ?? 0)) ? true : undefined;
    }, 'the balancer to route to every new host');
    await limitsHoldAcrossHosts('Redis');
  }, 90_000);
});
