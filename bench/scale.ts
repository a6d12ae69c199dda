/**
 * The console's reads at scale: one account's usage log loaded to N rows
 * (BENCH_SCALE_ROWS, default 1,000,000 on PGlite; BENCH_SCALE_ROWS_PG, default 5,000,000 on
 * PostgreSQL) among BENCH_SCALE_TOTAL_ROWS (BENCH_SCALE_TOTAL_ROWS_PG on PostgreSQL) of 100
 * accounts (default: that account's alone), generated in the database in batches, then
 * - Overview p50/p95 (UTC, New York, Kathmandu), and p50/p95 of each Usage filter (console and `GET /v1/usage`) and group-by;
 * - a 30-day CSV export: rows received and time to the last byte;
 * - `GET /v1/key` and chat p95 unloaded, and again while three clients reload Overview
 *   for BENCH_SCALE_LOAD_SECONDS (60) as fast as they are answered (paced by the account's
 *   read share), with every answer that was not a 200 counted.
 * The timed console reads are spaced to the account's read share (src/store/reporting-reads.ts).
 * Runs only when asked for (`BENCH_ONLY=scale`).
 */
import { allocatorDefaults } from '../src/ops/allocator-env.ts';
import { ACCOUNT_READS_PER_SECOND } from '../src/store/reporting-reads.ts';
import { createScratchDatabase } from '../test/support/test-database.ts';
import { startScript } from './child-process.ts';
import { compiledScript } from './compiled-scripts.ts';
import { percentile } from './load.ts';

export type Timing = { p50: number; p95: number; failures: number };
export type ScaleResult = {
  engine: string;
  rows: number;
  totalRows: number;
  loadSeconds: number;
  overview: Timing;
  filters: Array<{ name: string } & Timing>;
  export30Days: { rows: number; seconds: number; megabytes: number };
  gateway: { unloaded: { key: Timing; chat: Timing }; underOverviewLoad: { key: Timing; chat: Timing; overviews: number; overviewFailures: number } };
};

const SAMPLES = 20;

type Server = { url: string; key: string; provisioningKey: string; cookie: string; keyId: string };

async function timedRequest(url: string, init: RequestInit = {}): Promise<{ ms: number; ok: boolean }> {
  const startedAt = performance.now();
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return { ms: performance.now() - startedAt, ok: response.status === 200 };
}

/**
 * `count` requests one after another, each started at least `spacingMs` after the one before:
 * the console's reads are spaced to the account's share (ACCOUNT_READS_PER_SECOND), so that
 * a timed read measures the read and not the wait for its share.
 */
async function sample(count: number, request: () => Promise<{ ms: number; ok: boolean }>, spacingMs = 0): Promise<Timing> {
  const times: number[] = [];
  let failures = 0;
  for (let index = 0; index < count; index += 1) {
    const result = await request();
    times.push(result.ms);
    if (!result.ok) failures += 1;
    if (result.ms < spacingMs) await new Promise((done) => setTimeout(done, spacingMs - result.ms));
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95), failures };
}

/** Rows and bytes of an export, counted as they arrive (the body is never held whole). */
async function exportRows(url: string, cookie: string): Promise<{ rows: number; seconds: number; megabytes: number }> {
  const startedAt = performance.now();
  const response = await fetch(url, { headers: { cookie } });
  if (response.status !== 200 || !response.body) throw new Error(`export answered ${response.status}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) lines += 1;
  }
  return { rows: lines - 1, seconds: (performance.now() - startedAt) / 1000, megabytes: bytes / 1_048_576 };
}

async function measure(server: Server, loadSeconds: number): Promise<Omit<ScaleResult, 'engine' | 'rows' | 'totalRows' | 'loadSeconds'>> {
  const console = (path: string) => () => timedRequest(`${server.url}/console/api${path}`, { headers: { cookie: server.cookie } });
  const reports = (path: string) => () => timedRequest(`${server.url}/v1${path}`, { headers: { authorization: `Bearer ${server.provisioningKey}` } });
  const keyCall = () => timedRequest(`${server.url}/v1/key`, { headers: { authorization: `Bearer ${server.key}` } });
  const chatBody = JSON.stringify({ model: 'openai/bench-model', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 16 });
  const chatCall = () => timedRequest(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' }, body: chatBody });

  const share = 1_000 / ACCOUNT_READS_PER_SECOND;
  // Warm-up: caches, plans, connections.
  await sample(3, console('/overview'), share);
  await sample(10, keyCall);
  await sample(10, chatCall);

  const overview = await sample(SAMPLES, console('/overview'), share);
  const day = 86_400_000;
  const now = Date.now();
  const window = `from=${new Date(now - 45 * day).toISOString()}&to=${new Date(now - 44 * day).toISOString()}`;
  const deep = await fetch(`${server.url}/console/api/usage?limit=200&${window}`, { headers: { cookie: server.cookie } }).then(
    (response) => response.json() as Promise<{ next_cursor: string | null }>,
  );
  const filters: ScaleResult['filters'] = [];
  const cases: Array<[string, () => Promise<{ ms: number; ok: boolean }>]> = [
    // The Overview in the browser's days: half-hour rollups, and in a zone a quarter hour off the quarter hours of the half hours its days' boundaries cut.
    ['console: Overview, America/New_York', console('/overview?time_zone=America/New_York')],
    ['console: Overview, Asia/Kathmandu', console('/overview?time_zone=Asia/Kathmandu')],
    ['console: first page', console('/usage')],
    ['console: a model', console('/usage?model=openai/model-7')],
    ['console: a model with no rows', console('/usage?model=openai/no-such-model')],
    ['console: status upstream_error', console('/usage?status=upstream_error')],
    ['console: status interrupted (no rows)', console('/usage?status=interrupted')],
    ['console: an endpoint with no rows', console('/usage?endpoint=embeddings')],
    ['console: a key', console(`/usage?key_id=${server.keyId}`)],
    ['console: one day 45 days ago', console(`/usage?${window}`)],
    ['console: a page deep in that day', console(`/usage?${window}&cursor=${deep.next_cursor ?? ''}`)],
    ['/v1/usage: a model with no rows', reports('/usage?model=openai/no-such-model')],
    ['/v1/usage: a key', reports(`/usage?key_id=${server.keyId}`)],
    // The Usage page's group-bys over its default 30 days: half-hour rollups, the range's ends' half hours from the log.
    ['console: group by key, 30 days', console('/usage/summary?group_by=key')],
    ['console: group by model, 30 days', console('/usage/summary?group_by=model')],
    ['console: group by agent, 30 days', console('/usage/summary?group_by=agent')],
    ['console: group by UTC day, 30 days', console('/usage/summary?group_by=day&time_zone=UTC')],
    ['console: group by agent, one agent, 30 days', console('/usage/summary?group_by=agent&agent_id=agent-1')],
    // A filter of another kind: whole UTC days from the daily rollups, the part days at the edges from the log.
    ['console: group by key, a model, 30 days', console('/usage/summary?group_by=key&model=openai/model-7')],
    // Days of another zone: half-hour rollups; in a zone a quarter hour off, the quarter hours of the half hours its midnights cut.
    ['console: group by Paris day, 30 days', console('/usage/summary?group_by=day&time_zone=Europe/Paris')],
    ['console: group by Tokyo day, 30 days', console('/usage/summary?group_by=day&time_zone=Asia/Tokyo')],
    ['console: group by Kathmandu day, 30 days', console('/usage/summary?group_by=day&time_zone=Asia/Kathmandu')],
    // Two filters at once: UTC days' rollups, and from the log the pieces of them another local day holds (Tokyo 9 h a day).
    ['console: group by Tokyo day, a key and an agent', console(`/usage/summary?group_by=day&time_zone=Asia/Tokyo&key_id=${server.keyId}&agent_id=agent-0`)],
  ];
  for (const [name, request] of cases) filters.push({ name, ...(await sample(SAMPLES, request, share)) });

  const exportFrom = new Date(now - 30 * day).toISOString();
  const export30Days = await exportRows(`${server.url}/console/api/usage.csv?from=${exportFrom}`, server.cookie);

  const unloaded = { key: await sample(50, keyCall), chat: await sample(50, chatCall) };
  let reloading = true;
  let overviews = 0;
  let overviewFailures = 0;
  const reloaders = Array.from({ length: 3 }, async () => {
    while (reloading) {
      const result = await console('/overview')();
      overviews += 1;
      if (!result.ok) overviewFailures += 1;
    }
  });
  const loadEnds = performance.now() + loadSeconds * 1000;
  const keyTimes: number[] = [];
  const chatTimes: number[] = [];
  let keyFailures = 0;
  let chatFailures = 0;
  while (performance.now() < loadEnds) {
    const key = await keyCall();
    keyTimes.push(key.ms);
    if (!key.ok) keyFailures += 1;
    const chat = await chatCall();
    chatTimes.push(chat.ms);
    if (!chat.ok) chatFailures += 1;
  }
  reloading = false;
  await Promise.all(reloaders);
  const timing = (times: number[], failures: number): Timing => ({ p50: percentile(times, 50), p95: percentile(times, 95), failures });
  return { overview, filters, export30Days, gateway: { unloaded, underOverviewLoad: { key: timing(keyTimes, keyFailures), chat: timing(chatTimes, chatFailures), overviews, overviewFailures } } };
}

export async function scale(options: { databaseUrl: string | undefined; rows: number; totalRows: number; loadSeconds: number }): Promise<ScaleResult> {
  const totalRows = Math.max(options.rows, options.totalRows);
  const scratch = options.databaseUrl ? await createScratchDatabase(options.databaseUrl, 'junction_bench_scale') : undefined;
  try {
    const upstream = await startScript('bench/fake-upstream.ts', {});
    const server = await startScript(await compiledScript('bench/scale-server.ts'), {
      UPSTREAM_URL: upstream.info.url ?? '',
      DATABASE_URL: scratch?.url ?? '',
      SCALE_ROWS: String(options.rows),
      SCALE_TOTAL_ROWS: String(totalRows),
      ...allocatorDefaults(process.env),
    });
    const info = server.info as unknown as Server & { loadSeconds: string; engine: string };
    const result = await measure(info, options.loadSeconds);
    server.child.kill('SIGTERM');
    upstream.child.kill('SIGTERM');
    return { engine: info.engine, rows: options.rows, totalRows, loadSeconds: Number(info.loadSeconds), ...result };
  } finally {
    await new Promise((done) => setTimeout(done, 500));
    await scratch?.drop();
  }
}

export function printScale(result: ScaleResult): void {
  const ms = (value: number) => value.toFixed(1);
  const line = (name: string, timing: Timing) => console.log(`| ${name} | ${ms(timing.p50)} | ${ms(timing.p95)} | ${timing.failures} |`);
  const among = result.totalRows > result.rows ? ` among ${result.totalRows.toLocaleString('en')} of 100 accounts` : '';
  console.log(`\nconsole reads at scale (${result.engine}, ${result.rows.toLocaleString('en')} usage rows of one account${among}, loaded in ${result.loadSeconds} s):\n`);
  console.log('| read | p50 ms | p95 ms | not 200 |');
  console.log('|---|---:|---:|---:|');
  line('console Overview', result.overview);
  for (const filter of result.filters) line(filter.name, filter);
  const exported = result.export30Days;
  console.log(`\n30-day CSV export: ${exported.rows.toLocaleString('en')} rows, ${exported.megabytes.toFixed(1)} MB in ${exported.seconds.toFixed(1)} s.`);
  const { unloaded, underOverviewLoad: loaded } = result.gateway;
  console.log(`\n| gateway call | unloaded p50 / p95 ms | while 3 clients reload Overview p50 / p95 ms | not 200 under load |`);
  console.log('|---|---:|---:|---:|');
  console.log(`| GET /v1/key | ${ms(unloaded.key.p50)} / ${ms(unloaded.key.p95)} | ${ms(loaded.key.p50)} / ${ms(loaded.key.p95)} | ${loaded.key.failures} |`);
  console.log(`| chat | ${ms(unloaded.chat.p50)} / ${ms(unloaded.chat.p95)} | ${ms(loaded.chat.p50)} / ${ms(loaded.chat.p95)} | ${loaded.chat.failures} |`);
  console.log(`\nOverviews served during the load: ${loaded.overviews} (${loaded.overviewFailures} not 200).`);
}
