import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueSetupLink } from '../../src/console/session-routes.ts';
import { type ConsoleSession, ORIGIN, sessionCookieOf, sessionFrom } from '../support/console-session.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The console's exports (CSV and JSON Lines) hold every row the filters match, however
 * many: 120,000 rows here, more than twice the 50,000 an export was once cut at, compared
 * by count and by the sum of the numbers in their ids. On PGlite, and on PostgreSQL with
 * DATABASE_URL.
 */
const ROWS = 120_000;
const START = Date.UTC(2026, 8, 1);
/** A row every 40 seconds: 120,000 rows span about 55 days. */
const STEP_MS = 40_000;

let app: TestApp;
let owner: ConsoleSession;

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
  await app.services.db.query(
    `INSERT INTO usage_log (id, account_id, request_id, endpoint, model, status, cost_micros, created_at)
     SELECT 'gen-export-' || g, $1::uuid, 'req', 'chat.completions', 'model-' || (g % 3), 'success', g % 1000,
       to_timestamp($2::float8 / 1000) + (g * $3::float8) * interval '1 millisecond'
     FROM generate_series(1, $4::int) g`,
    [app.services.defaultAccount.id, START, STEP_MS, ROWS],
  );
}, 120_000);
afterAll(async () => {
  await app?.close();
});

/** The numbers in the exported rows' ids ('gen-export-N'), in the order they came. */
function idNumbers(ids: string[]): number[] {
  return ids.map((id) => Number(id.replace('gen-export-', '')));
}

function expectAll(numbers: number[], expected: number[]): void {
  expect(numbers.length).toBe(expected.length);
  expect(new Set(numbers).size).toBe(expected.length);
  expect(numbers.reduce((sum, n) => sum + n, 0)).toBe(expected.reduce((sum, n) => sum + n, 0));
  // Newest first, as the Usage page lists them.
  expect(numbers.every((n, index) => index === 0 || n < (numbers[index - 1] ?? 0))).toBe(true);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe('usage exports', () => {
  it('CSV: every row of the log, with one header line', async () => {
    const response = await owner.request('GET', '/console/api/usage.csv');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/csv/);
    const lines = response.body.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^created_at,id,/);
    expectAll(idNumbers(lines.slice(1).map((line) => line.split(',')[1] ?? '')), range(1, ROWS));
  }, 120_000);

  it('JSON Lines: every row of one model in a 30-day window', async () => {
    const from = new Date(START + 10 * 86_400_000);
    const to = new Date(from.getTime() + 30 * 86_400_000);
    const response = await owner.request('GET', `/console/api/usage.jsonl?model=model-1&from=${from.toISOString()}&to=${to.toISOString()}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const entries = response.body
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; model: string });
    expect(entries.every((entry) => entry.model === 'model-1')).toBe(true);
    // created_at = START + g × STEP_MS: g in [from, to) of the window, and g % 3 = 1 for model-1.
    const first = Math.ceil((from.getTime() - START) / STEP_MS);
    const last = Math.ceil((to.getTime() - START) / STEP_MS) - 1;
    const expected = range(first, last).filter((g) => g % 3 === 1);
    expect(expected.length).toBeGreaterThan(20_000);
    expectAll(idNumbers(entries.map((entry) => entry.id)), expected);
  }, 120_000);

  it('an export from a cursor holds the rows older than it, and a filter matching nothing is an empty file', async () => {
    const page = (await owner.request('GET', '/console/api/usage?limit=5')).json<{ next_cursor: string }>();
    const rest = await owner.request('GET', `/console/api/usage.jsonl?cursor=${page.next_cursor}&endpoint=chat.completions`);
    expect(rest.body.trimEnd().split('\n').length).toBe(ROWS - 5);
    const none = await owner.request('GET', '/console/api/usage.csv?model=no-such-model');
    expect(none.body).toBe('created_at,id,key_name,endpoint,model,provider,status,outcome,http_status,input_tokens,output_tokens,cost_usd,latency_ms,attempts,agent_id,agent_run_id\n');
  }, 120_000);
});
