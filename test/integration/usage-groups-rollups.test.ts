import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDays } from '../../src/billing/local-days.ts';
import type { UsageFilterValues, UsageGrouping } from '../../src/billing/usage-filter-schema.ts';
import { dayPieces, groupUsage, type UsageGroups } from '../../src/billing/usage-groups.ts';
import type { Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { freshStorage } from '../support/test-database.ts';

/**
 * The Usage page's group-by reads whole UTC days from the daily rollups and the part days
 * at the range's edges from the log, and local days from the half-hour rollups while they
 * keep the range: its answers equal the log's own, for every grouping and every filter the
 * rollups answer, including after a retention cut the log's oldest day. The log's answer is
 * the same call with an endpoint filter every row matches (the rollups cannot answer it),
 * and the seeds summed here. On PGlite, and on PostgreSQL with DATABASE_URL.
 */
let storage: Awaited<ReturnType<typeof freshStorage>>;
let db: Database;
let accountId: string;
const KEYS = [randomUUID(), randomUUID(), null];
const AGENTS = [null, 'support', 'triage', 'billing'];
// [model, requested model]: a row without a served model is named by the one it asked for, else 'unknown'.
const MODELS: Array<[string | null, string | null]> = [
  ['openai/gpt-4o-mini', 'openai/gpt-4o-mini'],
  ['openai/gpt-4o', 'openai/gpt-4o'],
  ['anthropic/claude-sonnet-4-5', 'anthropic/claude-sonnet-4-5'],
  [null, 'openai/GPT-asked'],
  [null, null],
];
const STATUSES = ['success', 'success', 'upstream_error', 'deferred_billing', 'rejected', 'client_closed'];
const DAY_MS = 86_400_000;
const at = (iso: string) => new Date(iso);
const FIRST = Date.UTC(2026, 9, 3);
// While the half-hour rollups keep every day of the seeds, and once they keep none of them.
const SOON = at('2026-10-20T12:00:00Z');
const LATER = at('2027-06-01T00:00:00Z');

type Seed = { id: string; at: Date; keyId: string | null; agentId: string | null; model: string | null; requested: string | null; status: string; input: number; output: number; cost: number };

/**
 * Rows every 53 minutes over ten UTC days, and rows on each midnight and the instant before
 * it, and on both sides of Kathmandu's midnight (18:15 UTC) and of the end of its half hour.
 */
function seeds(): Seed[] {
  const instants: number[] = [];
  for (let at = FIRST; at < FIRST + 10 * DAY_MS; at += 53 * 60_000) instants.push(at);
  const minutes = (count: number) => count * 60_000;
  for (let day = 1; day < 10; day += 1) {
    const midnight = FIRST + day * DAY_MS;
    instants.push(midnight, midnight - 1, midnight + minutes(18 * 60 + 15) - 1, midnight + minutes(18 * 60 + 15), midnight + minutes(18 * 60 + 30) - 1);
  }
  return instants.map((at, index) => {
    const [model, requested] = MODELS[index % MODELS.length] ?? [null, null];
    return {
      id: `gen-groups-${index}`,
      at: new Date(at),
      keyId: KEYS[index % KEYS.length] ?? null,
      agentId: AGENTS[(index >> 1) % AGENTS.length] ?? null,
      model,
      requested,
      status: STATUSES[index % STATUSES.length] ?? 'success',
      input: (index * 13) % 500,
      output: (index * 7) % 300,
      cost: (index * 37) % 1_000,
    };
  });
}

let rows: Seed[] = [];

async function insert(batch: Seed[]): Promise<void> {
  await db.query(
    `INSERT INTO usage_log (id, account_id, key_id, request_id, endpoint, model, requested_model, status, input_tokens, output_tokens, cost_micros, agent_id, created_at)
     SELECT id, $1, key_id, 'req', 'chat.completions', model, requested, status, input, output, cost, agent_id, at
     FROM unnest($2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[], $9::bigint[], $10::text[], $11::timestamptz[])
       AS t(id, key_id, model, requested, status, input, output, cost, agent_id, at)`,
    [
      accountId,
      batch.map((row) => row.id),
      batch.map((row) => row.keyId),
      batch.map((row) => row.model),
      batch.map((row) => row.requested),
      batch.map((row) => row.status),
      batch.map((row) => row.input),
      batch.map((row) => row.output),
      batch.map((row) => row.cost),
      batch.map((row) => row.agentId),
      batch.map((row) => row.at.toISOString()),
    ],
  );
}

beforeAll(async () => {
  storage = await freshStorage();
  db = await openDatabase({ databaseUrl: storage.databaseUrl, dataDir: storage.dataDir });
  await migrate(db);
  accountId = (await db.query<{ id: string }>("INSERT INTO accounts (name) VALUES ('groups') RETURNING id")).rows[0]?.id ?? '';
  // Another account's rows on the same days are never counted.
  const other = (await db.query<{ id: string }>("INSERT INTO accounts (name) VALUES ('other') RETURNING id")).rows[0]?.id ?? '';
  rows = seeds();
  // Several statements, so the rollups add to rows of earlier ones.
  for (let start = 0; start < rows.length; start += 70) await insert(rows.slice(start, start + 70));
  await db.query(
    `INSERT INTO usage_log (id, account_id, request_id, endpoint, model, status, cost_micros, agent_id, created_at)
     SELECT 'gen-other-' || g, $1, 'req', 'chat.completions', 'openai/gpt-4o-mini', 'success', 5000, 'support', timestamptz '2026-10-03T00:00:00Z' + g * interval '1 hour'
     FROM generate_series(0, 200) g`,
    [other],
  );
}, 60_000);
afterAll(async () => {
  await db?.close();
  await storage?.drop();
});

const nameOf = (row: Seed): string => row.model ?? row.requested ?? 'unknown';

/** The seeds still in the log that the filters match, grouped and summed here. */
function expected(filters: UsageFilterValues, grouping: UsageGrouping, dayStarts: Date[]): Map<string | null, number[]> {
  const groups = new Map<string | null, number[]>();
  for (const row of rows) {
    if (filters.from && row.at < filters.from) continue;
    if (filters.to && row.at >= filters.to) continue;
    if (filters.keyId && row.keyId !== filters.keyId) continue;
    if (filters.agentId && row.agentId !== filters.agentId) continue;
    if (filters.model && !nameOf(row).toLowerCase().includes(filters.model.toLowerCase())) continue;
    const day = dayStarts.filter((start) => start <= row.at).length;
    const key = { key: row.keyId, model: nameOf(row), agent: row.agentId, day: String(day) }[grouping];
    const sums = groups.get(key) ?? [0, 0, 0, 0];
    groups.set(key, [(sums[0] ?? 0) + 1, (sums[1] ?? 0) + row.input, (sums[2] ?? 0) + row.output, (sums[3] ?? 0) + row.cost]);
  }
  return groups;
}

const asMap = (result: UsageGroups) => new Map(result.groups.map((group) => [group.key, [group.requests, group.inputTokens, group.outputTokens, group.costMicros]]));

/**
 * The group-by as the page asks it, the same rows from the log alone, and the seeds' sums:
 * one answer. Days are asked while the half-hour rollups keep them and once they do not.
 */
async function compare(filters: UsageFilterValues, grouping: UsageGrouping, zone = 'UTC'): Promise<UsageGroups> {
  const dayStarts = grouping === 'day' && filters.from && filters.to ? localDays(zone, filters.from, filters.to, 400).starts : [];
  const logged = await groupUsage(db, accountId, { ...filters, endpoint: 'chat.completions' }, grouping, dayStarts, SOON);
  expect(asMap(logged)).toEqual(expected(filters, grouping, dayStarts));
  for (const now of [SOON, LATER]) expect(await groupUsage(db, accountId, filters, grouping, dayStarts, now)).toEqual(logged);
  return logged;
}
// West and east of UTC by whole hours, half and quarter hours, and the furthest both ways.
const ZONES = ['America/New_York', 'Europe/Paris', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Adelaide', 'Pacific/Chatham', 'Pacific/Kiritimati', 'Pacific/Pago_Pago'];
// The log's oldest day (3 October) is read from the log whatever the range: the edges lie after it.
const EDGES = { from: at('2026-10-04T05:30:00Z'), to: at('2026-10-11T17:45:00Z') };

/**
 * Adds `by` requests by hand to one half-hour rollup row from half hour `halfHour` on: its
 * running sums from element halfHour + 2 (element i + 1 holds the rows before half hour i).
 */
const addRequests = (row: { day: string; dimension: string; name: string; halfHour: number }, by: number) =>
  db.query(
    `UPDATE usage_half_hour_rollups SET requests = (SELECT array_agg(CASE WHEN n >= $5 + 2 THEN x + $6 ELSE x END ORDER BY n) FROM unnest(requests) WITH ORDINALITY AS t(x, n))
     WHERE account_id = $1 AND day = $2::date AND dimension = $3 AND name = $4`,
    [accountId, row.day, row.dimension, row.name, row.halfHour, by],
  );

/** Adds a quarter-hour rollup row by hand, of a model no seed has, with `requests` requests. */
const addQuarterHour = (row: { day: string; quarterHour: number; keyName: string; agentName: string }, requests = 1_000) =>
  db.query(
    `INSERT INTO usage_quarter_hour_rollups (account_id, day, quarter_hour, key_name, model, agent_name, requests, errors, spend_micros, input_tokens, output_tokens)
     VALUES ($1, $2::date, $3, $4, 'by-hand', $5, $6, 0, 0, 0, 0)`,
    [accountId, row.day, row.quarterHour, row.keyName, row.agentName, requests],
  );

describe('the group-by over the daily rollups', () => {
  it('equals the log for every grouping, with part days at both edges', async () => {
    for (const grouping of ['key', 'model', 'agent', 'day'] as const) {
      const result = await compare(EDGES, grouping);
      expect(result.groups.length).toBeGreaterThan(1);
    }
    // Days of other zones are not UTC days: pieces of UTC days move between them, the same answer.
    for (const zone of ZONES) await compare(EDGES, 'day', zone);
  });

  it('equals the log with key, model and agent filters, alone and together', async () => {
    const filters: UsageFilterValues[] = [
      { keyId: KEYS[0] ?? '' },
      { agentId: 'triage' },
      { model: 'GPT' },
      { model: 'asked' },
      { model: 'no-such-model' },
      { model: 'unknown', keyId: KEYS[1] ?? '', agentId: 'support' },
    ];
    for (const filter of filters) {
      for (const grouping of ['key', 'model', 'agent', 'day'] as const) await compare({ ...EDGES, ...filter }, grouping);
      await compare({ ...EDGES, ...filter }, 'day', 'Asia/Kolkata');
    }
  });

  it('equals the log by local day under filters of two and three kinds, in every zone', async () => {
    const filters: UsageFilterValues[] = [
      { keyId: KEYS[0] ?? '', agentId: 'triage' },
      { model: 'gpt', agentId: 'support' },
      { model: 'claude', keyId: KEYS[1] ?? '' },
      { model: 'unknown', keyId: KEYS[1] ?? '', agentId: 'support' },
      { model: 'no-such-model', keyId: KEYS[0] ?? '' },
    ];
    for (const filter of filters) {
      const days = await compare({ ...EDGES, ...filter }, 'day', 'Asia/Tokyo');
      if (filter.model !== 'no-such-model') expect(days.groups.length).toBeGreaterThan(3);
      for (const zone of ['UTC', ...ZONES]) await compare({ ...EDGES, ...filter }, 'day', zone);
    }
  });

  it('equals the log on ranges of whole days, within one day, and between two midnights and an instant', async () => {
    for (const range of [
      { from: at('2026-10-04T00:00:00Z'), to: at('2026-10-09T00:00:00Z') },
      { from: at('2026-10-05T01:00:00Z'), to: at('2026-10-05T23:00:00Z') },
      { from: at('2026-10-05T00:00:00Z'), to: at('2026-10-06T00:00:00.001Z') },
      { from: at('2026-09-01T00:00:00Z'), to: at('2026-11-01T00:00:00Z') },
    ]) {
      for (const grouping of ['key', 'agent', 'day'] as const) await compare(range, grouping);
      for (const zone of ['Europe/Paris', 'Pacific/Chatham']) await compare(range, 'day', zone);
    }
  });

  it('sums local days from the daily rollups, moving only the pieces of UTC days other days hold', async () => {
    const range = { from: at('2026-10-04T00:00:00Z'), to: at('2026-10-10T00:00:00Z') };
    const dayStarts = localDays('Europe/Paris', range.from, range.to, 400).starts;
    const before = await groupUsage(db, accountId, range, 'day', dayStarts, LATER);
    // 7 October UTC is in the Paris day of 7 October but for its last two hours (CEST, +2).
    const pieces = dayPieces({ from: range.from, to: range.to }, dayStarts);
    expect(pieces.moved.map((piece) => piece.to.getTime() - piece.from.getTime())).toEqual(Array.from({ length: 6 }, () => 2 * 3_600_000));
    await db.query("UPDATE usage_daily_rollups SET requests = requests + 1000 WHERE account_id = $1 AND day = '2026-10-07' AND agent_id = 'triage'", [accountId]);
    const after = await groupUsage(db, accountId, range, 'day', dayStarts, LATER);
    await db.query("UPDATE usage_daily_rollups SET requests = requests - 1000 WHERE account_id = $1 AND day = '2026-10-07' AND agent_id = 'triage'", [accountId]);
    const seventh = 1 + dayStarts.findIndex((start) => start.toISOString() === '2026-10-06T22:00:00.000Z');
    const changed = after.groups.filter((group, index) => group.requests !== before.groups[index]?.requests);
    expect(changed.map((group) => group.key)).toEqual([String(seventh)]);
    expect((changed[0]?.requests ?? 0) - (before.groups.find((group) => group.key === String(seventh))?.requests ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it('sums local days from the half-hour rollups while they keep every day of the range', async () => {
    const range = { from: at('2026-10-04T00:00:00Z'), to: at('2026-10-10T00:00:00Z') };
    const dayStarts = localDays('Asia/Tokyo', range.from, range.to, 400).starts;
    // The last instant they keep 4 October (a day more than their sweep), and the first they may not.
    const keeping = new Date(range.from.getTime() + 62 * DAY_MS - 1);
    const beyond = new Date(range.from.getTime() + 62 * DAY_MS);
    const before = await groupUsage(db, accountId, range, 'day', dayStarts, keeping);
    // One model's rows of 7 October UTC from 20:00 on (half hour 40), in Tokyo the morning of 8 October.
    const change = (by: number) => addRequests({ day: '2026-10-07', dimension: 'model', name: 'openai/gpt-4o', halfHour: 40 }, by);
    await change(1_000);
    const changed = await groupUsage(db, accountId, range, 'day', dayStarts, keeping);
    const unchanged = await groupUsage(db, accountId, range, 'day', dayStarts, beyond);
    await change(-1_000);
    const eighth = String(1 + dayStarts.findIndex((start) => start.toISOString() === '2026-10-07T15:00:00.000Z'));
    const differences = changed.groups.filter((group, index) => group.requests !== before.groups[index]?.requests);
    expect(differences.map((group) => [group.key, group.requests - (before.groups.find((one) => one.key === group.key)?.requests ?? 0)])).toEqual([[eighth, 1_000]]);
    expect(unchanged).toEqual(before);
    expect(await groupUsage(db, accountId, range, 'day', dayStarts, keeping)).toEqual(before);
  });

  it('sums local days under a key and an agent from the quarter hours', async () => {
    const range = { ...EDGES, keyId: KEYS[0] ?? '', agentId: 'triage' };
    const dayStarts = localDays('Asia/Tokyo', range.from, range.to, 400).starts;
    const before = await groupUsage(db, accountId, range, 'day', dayStarts, SOON);
    // Rows of the key and the agent on 7 October UTC from 20:00 (quarter hour 80), in Tokyo the morning of 8 October; and of the key and another agent.
    await addQuarterHour({ day: '2026-10-07', quarterHour: 80, keyName: range.keyId, agentName: 'triage' });
    await addQuarterHour({ day: '2026-10-07', quarterHour: 80, keyName: range.keyId, agentName: 'support' });
    const after = await groupUsage(db, accountId, range, 'day', dayStarts, SOON);
    await db.query("DELETE FROM usage_quarter_hour_rollups WHERE account_id = $1 AND model = 'by-hand'", [accountId]);
    const eighth = String(1 + dayStarts.findIndex((start) => start.toISOString() === '2026-10-07T15:00:00.000Z'));
    const differences = after.groups.filter((group, index) => group.requests !== before.groups[index]?.requests);
    expect(differences.map((group) => [group.key, group.requests - (before.groups.find((one) => one.key === group.key)?.requests ?? 0)])).toEqual([[eighth, 1_000]]);
    expect(await groupUsage(db, accountId, range, 'day', dayStarts, SOON)).toEqual(before);
  });

  it("sums the quarter hours of the half hours a quarter-hour zone's midnight cuts", async () => {
    const range = { from: at('2026-10-04T00:00:00Z'), to: at('2026-10-10T00:00:00Z') };
    const dayStarts = localDays('Asia/Kathmandu', range.from, range.to, 400).starts;
    const before = await groupUsage(db, accountId, range, 'day', dayStarts, SOON);
    // 7 October UTC from 18:00 to 18:15 (quarter hour 72) ends Kathmandu's 7 October; from 18:15 (73) begins its 8 October.
    await addQuarterHour({ day: '2026-10-07', quarterHour: 72, keyName: '', agentName: '' });
    await addQuarterHour({ day: '2026-10-07', quarterHour: 73, keyName: '', agentName: '' }, 10);
    const after = await groupUsage(db, accountId, range, 'day', dayStarts, SOON);
    await db.query("DELETE FROM usage_quarter_hour_rollups WHERE account_id = $1 AND model = 'by-hand'", [accountId]);
    const dayOf = (iso: string) => String(1 + dayStarts.findIndex((start) => start.toISOString() === iso));
    const moved = after.groups.map((group) => [group.key, group.requests - (before.groups.find((one) => one.key === group.key)?.requests ?? 0)]).filter(([, by]) => by !== 0);
    expect(moved).toEqual([
      [dayOf('2026-10-06T18:15:00.000Z'), 1_000],
      [dayOf('2026-10-07T18:15:00.000Z'), 10],
    ]);
  });

  it('sums keys, models and agents from the half-hour rollups, to the half hour', async () => {
    const before = await groupUsage(db, accountId, EDGES, 'agent', [], SOON);
    // Triage's rows of the range's last UTC day from 14:00 (half hour 28) to its end (17:45), a few more: rows without an agent are all rows but the agents', a few fewer.
    const change = (by: number) => addRequests({ day: '2026-10-11', dimension: 'agent', name: 'triage', halfHour: 28 }, by);
    await change(5);
    const after = await groupUsage(db, accountId, EDGES, 'agent', [], SOON);
    await change(-5);
    const requestsOf = (groups: UsageGroups, key: string | null) => groups.groups.find((group) => group.key === key)?.requests ?? 0;
    expect(requestsOf(after, 'triage') - requestsOf(before, 'triage')).toBe(5);
    expect(requestsOf(after, null) - requestsOf(before, null)).toBe(-5);
    expect(after.totals.requests).toBe(before.totals.requests);
  });

  it('reads the whole days from the rollups and the edges from the log', async () => {
    const before = await groupUsage(db, accountId, EDGES, 'agent', [], LATER);
    // A whole day's rollup and an edge day's rollup changed by hand: only the first shows.
    const change = (day: string, by: number) =>
      db.query(
        `UPDATE usage_daily_rollups r SET requests = r.requests + $3
         FROM (SELECT model, key_id FROM usage_daily_rollups WHERE account_id = $1 AND day = $2::date AND agent_id = 'triage' ORDER BY model, key_id NULLS FIRST LIMIT 1) one
         WHERE r.account_id = $1 AND r.day = $2::date AND r.agent_id = 'triage' AND r.model = one.model AND r.key_id IS NOT DISTINCT FROM one.key_id`,
        [accountId, day, by],
      );
    await change('2026-10-07', 1_000);
    await change('2026-10-04', 1_000);
    await change('2026-10-11', 1_000);
    const after = await groupUsage(db, accountId, EDGES, 'agent', [], LATER);
    await change('2026-10-07', -1_000);
    await change('2026-10-04', -1_000);
    await change('2026-10-11', -1_000);
    expect(after.totals.requests - before.totals.requests).toBe(1_000);
    expect(after.groups.find((group) => group.key === 'triage')?.requests).toBe((before.groups.find((group) => group.key === 'triage')?.requests ?? 0) + 1_000);
  });

  it('reads the days up to the oldest row from the log once a retention cut the log in a day', async () => {
    // What the default partition's sweep does: the rows before an instant go, the rollups keep them.
    const cut = at('2026-10-05T13:00:00Z');
    await db.query('DELETE FROM usage_log WHERE account_id = $1 AND created_at < $2', [accountId, cut]);
    rows = rows.filter((row) => row.at >= cut);
    for (const grouping of ['key', 'model', 'agent', 'day'] as const) {
      await compare(EDGES, grouping);
      await compare({ from: at('2026-10-01T00:00:00Z'), to: at('2026-10-12T00:00:00Z') }, grouping);
    }
    const dropped = await db.query<{ requests: number }>('SELECT sum(requests)::int AS requests FROM usage_daily_rollups WHERE account_id = $1 AND day < $2::date', [accountId, '2026-10-05']);
    expect(dropped.rows[0]?.requests).toBeGreaterThan(0);
  });
});
