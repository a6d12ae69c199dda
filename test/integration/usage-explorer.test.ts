import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { MODEL_NAMES_MAX } from '../../src/billing/usage-where.ts';
import { issueSetupLink } from '../../src/console/session-routes.ts';
import { type ConsoleSession, ORIGIN, sessionCookieOf, sessionFrom } from '../support/console-session.ts';
import { bearer, startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The usage explorer's filters, one rule for the console and `GET /v1/usage`: statuses as
 * people say them, a model found by any part of its name, any key and any agent, days
 * of a time zone, and group-bys whose totals are the sums of the rows they group. On
 * PGlite, and on PostgreSQL with DATABASE_URL.
 */
let app: TestApp;
let owner: ConsoleSession;
let provisioning: string;
const ids: { app: string; bot: string } = { app: '', bot: '' };

type Seed = { id: string; at: string; model: string | null; requested?: string; status: string; key?: 'app' | 'bot'; agent?: string; cost: number; input?: number; output?: number };

// New York is 5 hours behind UTC in December: its 1 December runs from 05:00Z to 05:00Z the next day.
const ROWS: Seed[] = [
  { id: 'r1', at: '2026-12-01T04:59:59Z', model: 'openai/gpt-4o-mini', status: 'success', key: 'app', cost: 100, input: 10, output: 5 },
  { id: 'r2', at: '2026-12-01T05:00:00Z', model: 'openai/gpt-4o-mini', status: 'success', key: 'app', cost: 200, input: 20, output: 10 },
  { id: 'r3', at: '2026-12-01T12:00:00Z', model: 'anthropic/claude-sonnet-4-5', status: 'upstream_error', key: 'app', cost: 0, input: 30 },
  { id: 'r4', at: '2026-12-02T04:59:59Z', model: null, requested: 'openai/GPT-4O', status: 'rejected', key: 'app', cost: 0 },
  { id: 'r5', at: '2026-12-02T05:00:00Z', model: 'openai/gpt-4o-mini', status: 'success', key: 'bot', agent: 'support', cost: 300, input: 40, output: 20 },
  { id: 'r6', at: '2026-12-02T06:00:00Z', model: 'openai/gpt-4o-mini', status: 'client_closed', key: 'bot', agent: 'support', cost: 50, input: 7 },
  { id: 'r7', at: '2026-12-02T07:00:00Z', model: 'openai/gpt-4o', status: 'deferred_billing', cost: 0 },
  { id: 'r8', at: '2026-12-02T08:00:00Z', model: 'google/gemini-2.5-flash', status: 'interrupted', key: 'app', cost: 25, input: 5, output: 1 },
];
const DECEMBER = `from=${encodeURIComponent('2026-11-30T00:00:00-05:00')}&to=${encodeURIComponent('2026-12-03T00:00:00-05:00')}`;

async function insert(accountId: string, rows: Seed[]): Promise<void> {
  for (const row of rows) {
    await app.services.db.query(
      `INSERT INTO usage_log (id, account_id, key_id, request_id, endpoint, requested_model, model, status, input_tokens, output_tokens, cost_micros, agent_id, created_at)
       VALUES ($1, $2, $3, 'req', 'chat.completions', $4, $5, $6, $7, $8, $9, $10, $11)`,
      [row.id, accountId, row.key ? ids[row.key] : null, row.requested ?? row.model, row.model, row.status, row.input ?? 0, row.output ?? 0, row.cost, row.agent ?? null, row.at],
    );
  }
}

beforeAll(async () => {
  app = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent', JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  const link = await issueSetupLink(app.services.db, 'http://localhost', new Date());
  const token = new URL(link as string).searchParams.get('token') as string;
  const setup = await app.app.inject({
    method: 'POST',
    url: '/console/api/setup',
    headers: { origin: ORIGIN, host: 'localhost:80' },
    payload: { token, email: 'owner@example.com', password: 'correct horse battery' },
  });
  owner = await sessionFrom(app.app, sessionCookieOf(setup));
  provisioning = await app.key('provisioning');
  await app.key('model', { name: 'app' });
  await app.key('agent', { name: 'bot' });
  const keys = await app.services.db.query<{ id: string; name: string }>("SELECT id, name FROM api_keys WHERE name IN ('app', 'bot')");
  for (const key of keys.rows) ids[key.name as 'app' | 'bot'] = key.id;
  await insert(app.services.defaultAccount.id, ROWS);
  // More model names than a search reads from the rollups: found on the rows themselves.
  const bulk = Array.from(
    { length: MODEL_NAMES_MAX + 5 },
    (_, index): Seed => ({ id: `b${index}`, at: new Date(Date.UTC(2026, 9, 1, 0, index)).toISOString(), model: `bulk/Model-${index}`, status: 'success', cost: 1 }),
  );
  await insert(app.services.defaultAccount.id, bulk);
  // Another account's calls, of the same names and days, are never counted.
  const other = await createAccount(app.services.db, 'other team');
  await insert(other.id, [{ id: 'x1', at: '2026-12-01T10:00:00Z', model: 'openai/gpt-4o-mini', status: 'success', cost: 9_000 }]);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

type Entry = { id: string; status: string; outcome?: string; cost_usd?: number; total_cost?: number };
const consoleIds = async (query: string): Promise<string[]> => {
  const response = await owner.request('GET', `/console/api/usage?limit=200&${query}`);
  expect(response.statusCode).toBe(200);
  return response.json<{ data: Entry[] }>().data.map((entry) => entry.id);
};
const gatewayIds = async (query: string): Promise<string[]> => {
  const response = await app.app.inject({ url: `/v1/usage?limit=500&${query}`, headers: bearer(provisioning) });
  expect(response.statusCode).toBe(200);
  return response.json<{ data: Entry[] }>().data.map((entry) => entry.id);
};
/** Both routes, one answer: the filter rule is shared. */
const both = async (query: string): Promise<string[]> => {
  const [inConsole, inGateway] = [await consoleIds(query), await gatewayIds(query)];
  expect(inGateway).toEqual(inConsole);
  return [...inConsole].sort();
};

type Totals = { requests: number; input_tokens: number; output_tokens: number; cost_usd: number };
type Summary = { group_by: string; groups: Array<Totals & { key: string | null; name: string }>; totals: Totals; truncated: boolean };
const summary = async (query: string): Promise<Summary> => {
  const response = await owner.request('GET', `/console/api/usage/summary?${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Summary>();
};
const sum = (rows: Seed[]) => ({
  requests: rows.length,
  input_tokens: rows.reduce((total, row) => total + (row.input ?? 0), 0),
  output_tokens: rows.reduce((total, row) => total + (row.output ?? 0), 0),
  cost_usd: rows.reduce((total, row) => total + row.cost, 0) / 1_000_000,
});
const seeds = (...names: string[]) => ROWS.filter((row) => names.includes(row.id));

describe('usage filters', () => {
  it('status: success, error and refused cover the statuses the log stores', async () => {
    expect(await both(`status=success&${DECEMBER}`)).toEqual(['r1', 'r2', 'r5', 'r7']);
    expect(await both(`status=error&${DECEMBER}`)).toEqual(['r3', 'r6', 'r8']);
    expect(await both(`status=refused&${DECEMBER}`)).toEqual(['r4']);
    // A stored status still finds exactly its rows.
    expect(await both(`status=client_closed&${DECEMBER}`)).toEqual(['r6']);
    const rows = (await owner.request('GET', `/console/api/usage?${DECEMBER}&limit=200`)).json<{ data: Entry[] }>().data;
    expect(Object.fromEntries(rows.map((row) => [row.id, row.outcome]))).toMatchObject({ r3: 'error', r4: 'refused', r7: 'success' });
    expect((await owner.request('GET', '/console/api/usage?status=failed')).statusCode).toBe(400);
  });

  it('model: any part of the name, in any case, including the model a refused call asked for', async () => {
    expect(await both(`model=GPT-4o&${DECEMBER}`)).toEqual(['r1', 'r2', 'r4', 'r5', 'r6', 'r7']);
    expect(await both(`model=claude&${DECEMBER}`)).toEqual(['r3']);
    expect(await both('model=no-such-model')).toEqual([]);
    // Beyond the names a search reads from the rollups, the rows themselves are matched.
    expect((await gatewayIds('model=BULK/model')).length).toBe(MODEL_NAMES_MAX + 5);
    const october = `from=2026-09-30T00:00:00Z&to=2026-10-02T00:00:00Z`;
    expect((await summary(`group_by=model&model=BULK/model&${october}`)).totals.requests).toBe(MODEL_NAMES_MAX + 5);
    expect(await both('model=bulk/model-20')).toEqual(['b20', 'b200', 'b201', 'b202', 'b203', 'b204']);
  });

  it('any key of the account, agent keys too, and an agent', async () => {
    expect(await both(`key_id=${ids.bot}`)).toEqual(['r5', 'r6']);
    expect(await both('agent_id=support')).toEqual(['r5', 'r6']);
    expect(await both(`key_id=${ids.app}&status=error&${DECEMBER}`)).toEqual(['r3', 'r8']);
  });

  it('local days: a day of New York runs from its midnight to the next, in UTC instants', async () => {
    const day = `from=${encodeURIComponent('2026-12-01T00:00:00-05:00')}&to=${encodeURIComponent('2026-12-02T00:00:00-05:00')}`;
    expect(await both(day)).toEqual(['r2', 'r3', 'r4']);
  });
});

describe('usage group-by', () => {
  it('by local day: every day of the range, the rows of each, totals equal to their sum', async () => {
    const result = await summary(`group_by=day&time_zone=America/New_York&${DECEMBER}`);
    expect(result.groups.map((group) => [group.name, group.requests])).toEqual([
      ['2026-11-30', 1],
      ['2026-12-01', 3],
      ['2026-12-02', 4],
    ]);
    expect(result.groups[1]).toMatchObject(sum(seeds('r2', 'r3', 'r4')));
    expect(result.totals).toEqual(sum(ROWS));
    // The same rows in UTC days fall on other days.
    const utc = await summary(`group_by=day&time_zone=UTC&from=2026-12-01T00:00:00Z&to=2026-12-03T00:00:00Z`);
    expect(utc.groups.map((group) => [group.name, group.requests])).toEqual([
      ['2026-12-01', 3],
      ['2026-12-02', 5],
    ]);
  });

  it('by key, model and agent: names, and totals equal to the sum of the rows listed', async () => {
    for (const grouping of ['key', 'model', 'agent'] as const) {
      const result = await summary(`group_by=${grouping}&${DECEMBER}`);
      expect(result.totals).toEqual(sum(ROWS));
      const requests = result.groups.reduce((total, group) => total + group.requests, 0);
      const cost = result.groups.reduce((total, group) => total + group.cost_usd, 0);
      expect(requests).toBe(ROWS.length);
      expect(cost).toBeCloseTo(sum(ROWS).cost_usd, 9);
    }
    const byKey = await summary(`group_by=key&${DECEMBER}`);
    expect(Object.fromEntries(byKey.groups.map((group) => [group.name, group.requests]))).toEqual({ app: 5, bot: 2, 'console and operator': 1 });
    const byModel = await summary(`group_by=model&model=gpt&${DECEMBER}`);
    expect(Object.fromEntries(byModel.groups.map((group) => [group.name, group.requests]))).toEqual({ 'openai/gpt-4o-mini': 4, 'openai/GPT-4O': 1, 'openai/gpt-4o': 1 });
    expect(byModel.totals).toEqual(sum(seeds('r1', 'r2', 'r4', 'r5', 'r6', 'r7')));
    const byAgent = await summary(`group_by=agent&status=success&${DECEMBER}`);
    expect(Object.fromEntries(byAgent.groups.map((group) => [group.name, group.requests]))).toEqual({ support: 1, 'no agent': 3 });
  });

  it('refuses an unknown time zone and a range beyond a year', async () => {
    const zone = await owner.request('GET', '/console/api/usage/summary?group_by=day&time_zone=Mars/Olympus');
    expect(zone.statusCode).toBe(400);
    expect(zone.json<{ error: { param: string } }>().error.param).toBe('time_zone');
    const long = await owner.request('GET', `/console/api/usage/summary?group_by=key&from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z`);
    expect(long.statusCode).toBe(400);
    expect(long.json<{ error: { param: string } }>().error.param).toBe('from');
  });
});
