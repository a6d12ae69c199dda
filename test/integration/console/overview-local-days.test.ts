import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDays } from '../../../src/billing/local-days.ts';
import { cutQuarterHours } from '../../../src/billing/half-hour-segments.ts';
import { type LocalDailyUsage, localDailyUsage } from '../../../src/billing/local-daily-usage.ts';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { issueSetupLink } from '../../../src/console/session-routes.ts';
import type { Overview } from '../../../src/console/contract/overview.ts';
import { type ConsoleSession, ORIGIN, sessionCookieOf, sessionFrom } from '../../support/console-session.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';

/**
 * The Overview in the browser's days: its charts, "today" and "this month" are the days
 * of the time zone the page sends, summed from the half-hour rollups (and, in zones a quarter
 * hour off, the log's rows of the half hours their days' boundaries cut): the same answer as
 * the log's rows themselves.
 */
const NOW = new Date('2026-12-02T12:00:00Z');
let app: TestApp;
let owner: ConsoleSession;

// New York is 5 hours behind UTC in December: its 1 December runs from 05:00Z to 05:00Z the next day.
const ROWS = [
  { id: 'o1', at: '2026-11-01T12:00:00Z', model: 'old/model', status: 'success', cost: 5_000 },
  { id: 'o2', at: '2026-11-30T12:00:00Z', model: 'c/model', status: 'success', cost: 50 },
  { id: 'o3', at: '2026-12-01T04:59:59Z', model: 'a/model', status: 'success', cost: 100 },
  { id: 'o4', at: '2026-12-01T05:00:00Z', model: 'a/model', status: 'success', cost: 200 },
  { id: 'o5', at: '2026-12-02T04:00:00Z', model: 'b/model', status: 'upstream_error', cost: 300 },
  { id: 'o6', at: '2026-12-02T06:00:00Z', model: 'a/model', status: 'success', cost: 400, agent: 'support' },
  { id: 'o7', at: '2026-12-02T06:29:59Z', model: 'a/model', status: 'success', cost: 0, agent: 'triage' },
];

beforeAll(async () => {
  app = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent', JUNCTION_KNOWLEDGE_DIR: '/nonexistent' }, { now: () => NOW });
  const link = await issueSetupLink(app.services.db, 'http://localhost', new Date());
  const token = new URL(link as string).searchParams.get('token') as string;
  const setup = await app.app.inject({
    method: 'POST',
    url: '/console/api/setup',
    headers: { origin: ORIGIN, host: 'localhost:80' },
    payload: { token, email: 'owner@example.com', password: 'correct horse battery' },
  });
  owner = await sessionFrom(app.app, sessionCookieOf(setup));
  for (const row of ROWS) {
    await app.services.db.query(
      `INSERT INTO usage_log (id, account_id, request_id, endpoint, requested_model, model, status, input_tokens, output_tokens, cost_micros, created_at, agent_id)
       VALUES ($1, $2, 'req', 'chat.completions', $3, $3, $4, 0, 0, $5, $6, $7)`,
      [row.id, app.services.defaultAccount.id, row.model, row.status, row.cost, row.at, row.agent ?? null],
    );
  }
}, 60_000);
afterAll(async () => app?.close());

const overview = async (zone: string): Promise<Overview> => (await owner.request('GET', `/console/api/overview?time_zone=${encodeURIComponent(zone)}`)).json<Overview>();
const usd = (micros: number) => micros / 1_000_000;

type LoggedRow = { at: Date; model: string; key: string; agent: string | null; error: boolean; cost: number };

/** The series computed row by row, apart from the SQL: each row in the last day begun at or before it. */
function fromTheLog(rows: LoggedRow[], days: { days: string[]; starts: Date[] }, from: Date): LocalDailyUsage {
  const spend = { model: new Map<string, number>(), key: new Map<string, number>(), agent: new Map<string, number>() };
  const requests = new Map<string, { requests: number; errors: number }>();
  let before = 0;
  for (const row of rows) {
    const at = new Date(row.at).getTime();
    if (at < from.getTime()) continue;
    const index = days.starts.findLastIndex((start) => start.getTime() <= at);
    const day = days.days[index];
    if (day === undefined) {
      before += row.cost;
      continue;
    }
    const add = (sums: Map<string, number>, name: string) => sums.set(`${day}|${name}`, (sums.get(`${day}|${name}`) ?? 0) + row.cost);
    add(spend.model, row.model);
    add(spend.key, row.key);
    if (row.agent !== null) add(spend.agent, row.agent);
    const counts = requests.get(day) ?? { requests: 0, errors: 0 };
    requests.set(day, { requests: counts.requests + 1, errors: counts.errors + (row.error ? 1 : 0) });
  }
  const points = (sums: Map<string, number>) =>
    [...sums]
      .filter(([, total]) => total > 0)
      .map(([id, total]) => ({ day: id.split('|')[0] as string, name: id.split('|')[1] as string, spend: total }))
      .sort((a, b) => a.day.localeCompare(b.day) || a.name.localeCompare(b.name));
  return {
    byModel: points(spend.model),
    byKey: points(spend.key),
    byAgent: points(spend.agent),
    requests: [...requests].map(([day, counts]) => ({ day, ...counts })).sort((a, b) => a.day.localeCompare(b.day)),
    before,
  };
}

describe('the Overview in the browser’s days', () => {
  it('groups by New York days, with its today and its month', async () => {
    const ny = await overview('America/New_York');
    expect(ny.days).toHaveLength(30);
    expect([ny.days[0], ny.days.at(-1)]).toEqual(['2026-11-03', '2026-12-02']);
    expect(ny.spend_by_model).toEqual([
      { day: '2026-11-30', name: 'a/model', spend_usd: usd(100) },
      { day: '2026-11-30', name: 'c/model', spend_usd: usd(50) },
      { day: '2026-12-01', name: 'a/model', spend_usd: usd(200) },
      { day: '2026-12-01', name: 'b/model', spend_usd: usd(300) },
      { day: '2026-12-02', name: 'a/model', spend_usd: usd(400) },
    ]);
    expect(ny.spend_by_key.map((point) => [point.day, point.name, point.spend_usd])).toEqual([
      ['2026-11-30', 'console and operator', usd(150)],
      ['2026-12-01', 'console and operator', usd(500)],
      ['2026-12-02', 'console and operator', usd(400)],
    ]);
    expect(ny.requests).toEqual([
      { day: '2026-11-30', requests: 2, errors: 0 },
      { day: '2026-12-01', requests: 2, errors: 1 },
      { day: '2026-12-02', requests: 2, errors: 0 },
    ]);
    // An agent with no spend on a day has no point; calls outside agents are in no agent's series.
    expect(ny.spend_by_agent).toEqual([{ day: '2026-12-02', name: 'support', spend_usd: usd(400) }]);
    expect([ny.spend_today_usd, ny.spend_month_usd]).toEqual([usd(400), usd(900)]);
  });

  it('gives UTC, a half-hour zone and a quarter-hour zone each its own days and today', async () => {
    const utc = await overview('UTC');
    expect(utc.days.at(-1)).toBe('2026-12-02');
    expect(utc.requests).toEqual([
      { day: '2026-11-30', requests: 1, errors: 0 },
      { day: '2026-12-01', requests: 2, errors: 0 },
      { day: '2026-12-02', requests: 3, errors: 1 },
    ]);
    expect([utc.spend_today_usd, utc.spend_month_usd]).toEqual([usd(700), usd(1_000)]);
    // Kolkata (+05:30) reads the half hours; its 2 December began at 18:30Z on the 1st.
    const kolkata = await overview('Asia/Kolkata');
    expect(kolkata.requests.map((entry) => [entry.day, entry.requests])).toEqual([
      ['2026-11-30', 1],
      ['2026-12-01', 2],
      ['2026-12-02', 3],
    ]);
    expect([kolkata.spend_today_usd, kolkata.spend_month_usd]).toEqual([usd(700), usd(1_000)]);
    // Kathmandu (+05:45): 04:59:59Z on 1 December is 10:44:59 there.
    const kathmandu = await overview('Asia/Kathmandu');
    expect(kathmandu.spend_by_model.map((point) => [point.day, point.name, point.spend_usd])).toEqual([
      ['2026-11-30', 'c/model', usd(50)],
      ['2026-12-01', 'a/model', usd(300)],
      ['2026-12-02', 'a/model', usd(400)],
      ['2026-12-02', 'b/model', usd(300)],
    ]);
    expect(kathmandu.spend_by_agent).toEqual([{ day: '2026-12-02', name: 'support', spend_usd: usd(400) }]);
  });

  it('sums the same series as the log itself in every kind of zone, quarter-hour ones too', async () => {
    const other = randomUUID();
    const keys = await Promise.all(
      ['edge-a', 'edge-b'].map(async (name) => ((await runAdminCommand(app.services, { command: 'keys.create', kind: 'model', name })) as { data: { id: string } }).data.id),
    );
    // A row every 7 minutes and 13 seconds over 40 days: every half hour and every quarter-hour edge has rows.
    await app.services.db.query(
      `INSERT INTO usage_log (id, account_id, key_id, request_id, endpoint, requested_model, model, status, input_tokens, output_tokens, cost_micros, agent_id, created_at)
       SELECT 'edge-' || g, $1, CASE WHEN g % 3 = 0 THEN NULL ELSE ($2::uuid[])[1 + g % 2] END, 'req', 'chat.completions', 'asked-' || (g % 2),
         CASE WHEN g % 5 = 0 THEN NULL ELSE 'model-' || (g % 4) END, (ARRAY['success', 'upstream_error', 'deferred_billing', 'rejected'])[1 + g % 4],
         0, 0, (g * 37) % 900, CASE WHEN g % 2 = 0 THEN NULL ELSE 'agent-' || (g % 3) END, $3::timestamptz + g * interval '433 seconds'
       FROM generate_series(0, 7980) g`,
      [other, keys, '2026-10-23T00:00:00Z'],
    );
    const logged = await app.services.db.query<{ at: Date; model: string; key: string; agent: string | null; error: boolean; cost: number }>(
      `SELECT u.created_at AS at, COALESCE(u.model, u.requested_model, 'unknown') AS model, COALESCE(k.name, 'console and operator') AS key, u.agent_id AS agent,
         u.status NOT IN ('success', 'deferred_billing') AS error, u.cost_micros::int AS cost
       FROM usage_log u LEFT JOIN api_keys k ON k.id = u.key_id WHERE u.account_id = $1`,
      [other],
    );
    const zones = ['UTC', 'America/New_York', 'Asia/Kolkata', 'Australia/Adelaide', 'America/St_Johns', 'Asia/Kathmandu', 'Pacific/Chatham'];
    for (const zone of zones) {
      const days = localDays(zone, new Date('2026-10-30T00:00:00Z'), NOW, 60);
      // From a quarter-hour zone's day before the first, as the Overview's month may begin before its 30 days.
      const from = new Date((days.starts[0] as Date).getTime() - 86_400_000);
      expect(await localDailyUsage(app.services.db, other, days, from)).toEqual(fromTheLog(logged.rows, days, from));
    }
    // From inside a quarter hour: the rows of its rest come from the log.
    const kathmanduDays = localDays('Asia/Kathmandu', new Date('2026-10-30T00:00:00Z'), NOW, 60);
    const inside = new Date((kathmanduDays.starts[0] as Date).getTime() - 86_400_000 + 7 * 60_000);
    expect(await localDailyUsage(app.services.db, other, kathmanduDays, inside)).toEqual(fromTheLog(logged.rows, kathmanduDays, inside));
    expect(cutQuarterHours(localDays('UTC', new Date('2026-11-01T00:00:00Z'), NOW, 60).starts, new Date('2026-10-31T00:00:00Z'))).toEqual({ whole: [], partial: [] });
    // Kathmandu's days begin at 18:15 UTC, inside the half hour from 18:00: its quarter hours are whole, but the one before `from`.
    const kathmandu = localDays('Asia/Kathmandu', new Date('2026-11-30T00:00:00Z'), NOW, 60).starts;
    expect(cutQuarterHours(kathmandu, new Date('2026-11-29T18:15:00Z'))).toEqual({
      whole: ['2026-11-29T18:15', '2026-11-30T18:00', '2026-11-30T18:15', '2026-12-01T18:00', '2026-12-01T18:15'].map((at) => new Date(`${at}:00Z`)),
      partial: [],
    });
    // A `from` inside a quarter hour leaves that one to the log.
    expect(cutQuarterHours(kathmandu, new Date('2026-11-29T18:20:00Z')).partial).toEqual([new Date('2026-11-29T18:15:00Z')]);
  });

  it('refuses a time zone it does not know, naming the field', async () => {
    const response = await owner.request('GET', '/console/api/overview?time_zone=Mars/Olympus');
    expect(response.statusCode).toBe(400);
    expect(response.json<{ error: { param: string } }>().error.param).toBe('time_zone');
  });
});
