/**
 * Junction under the scale bench (bench/scale.ts): the real app, as bench/gateway-server.ts
 * starts it, with one account's usage log loaded to SCALE_ROWS rows before it listens: rows
 * in time order over 90 days, 20 keys, 30 models, 1 in 4 of an agent (5 agents), 94.5%
 * success, then analyzed. With SCALE_TOTAL_ROWS, 99 other accounts' rows fill the log to
 * that many, generated in the database alongside. Prints its URL, a model key, a
 * provisioning key, a console session cookie and how long the load took.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdminCommand } from '../src/admin/admin-commands.ts';
import { readEnvConfig } from '../src/config/env-config.ts';
import { createServices } from '../src/assembly/services.ts';
import { listenSignedIn } from './listen-signed-in.ts';
import { keepUsagePartitions } from '../src/billing/usage-partitions.ts';

const rows = Number(process.env.SCALE_ROWS ?? 1_000_000);
/** The whole log: the measured account's rows and OTHER_ACCOUNTS' (SCALE_TOTAL_ROWS, default the measured rows alone). */
const totalRows = Number(process.env.SCALE_TOTAL_ROWS ?? rows);
const OTHER_ACCOUNTS = 99;
const KEYS = 20;
const MODELS = 30;
const DAYS = 90;
/** Agents' calls: 1 row in 4, over AGENTS agents (agent-0 … agent-4); the others carry none. */
const AGENTS = 5;
const AGENT_OF_ROW = `CASE WHEN g % 4 = 0 THEN 'agent-' || (g / 4 % ${AGENTS}) END`;
/** Rows per INSERT: each statement's rollup upsert reads its own rows once. */
const CHUNK = 100_000;

const configDir = mkdtempSync(join(tmpdir(), 'junction-scale-'));
const configFile = join(configDir, 'junction.yaml');
writeFileSync(configFile, 'models:\n  openai/bench-model:\n    capabilities: [chat]\n    max_output_tokens: 1024\n    prices: { input: 0.15, output: 0.6 }\n');
if (!process.env.DATABASE_URL) delete process.env.DATABASE_URL;
const env = { ...process.env, OPENAI_API_KEY: 'upstream', OPENAI_BASE_URL: process.env.UPSTREAM_URL ?? '', JUNCTION_CONFIG: configFile, LOG_LEVEL: 'warn' };
const config = readEnvConfig({ ...env, JUNCTION_DATA_DIR: process.env.JUNCTION_DATA_DIR ?? join(configDir, 'data') });
const services = await createServices(config, { env, loadAgents: false });
await runAdminCommand(services, { command: 'credits.grant', amount: '1000000', currency: 'USD' });
const created = (await runAdminCommand(services, { command: 'keys.create', kind: 'model', name: 'bench', dailyLimitUsd: 100000, rateLimitRpm: 100_000_000 })) as { key: string };
const provisioning = (await runAdminCommand(services, { command: 'keys.create', kind: 'provisioning', name: 'bench reports' })) as { key: string };
const keyIds: string[] = [];
for (let index = 0; index < KEYS; index += 1) {
  keyIds.push(((await runAdminCommand(services, { command: 'keys.create', kind: 'model', name: `scale-${index}` })) as { data: { id: string } }).data.id);
}

const accountId = services.defaultAccount.id;
const loadStarted = performance.now();
const end = Date.now();
const spanMs = DAYS * 86_400_000;
// The log's months over the span, as a log that grew over it has them (a new store has this month's and the next ones only).
for (let at = end - spanMs; at < end; at += 28 * 86_400_000) await keepUsagePartitions(services.db, new Date(at), undefined);
/** The measured account's rows `first`..`last`: row g of N at end - span + g × span / N, in time order, the newest now; 5.5% are not successes. */
const measured = (first: number, last: number) =>
  services.db.query(
    `INSERT INTO usage_log (id, account_id, key_id, request_id, endpoint, requested_model, model, provider, status, http_status,
       input_tokens, output_tokens, cost_micros, latency_ms, agent_id, created_at)
     SELECT 'gen-scale-' || g, $1::uuid, ($2::uuid[])[1 + g % ${KEYS}], 'req-' || g, 'chat.completions', 'openai/model-' || (g % ${MODELS}),
       'openai/model-' || (g % ${MODELS}), 'openai', CASE WHEN g % 200 < 11 THEN 'upstream_error' ELSE 'success' END,
       CASE WHEN g % 200 < 11 THEN 502 ELSE 200 END, 100 + g % 900, 50 + g % 400, CASE WHEN g % 200 < 11 THEN 0 ELSE 20 + g % 500 END, 200 + g % 1000,
       ${AGENT_OF_ROW}, to_timestamp(($3::float8 - $4::float8 + g * ($4::float8 / $5::float8)) / 1000)
     FROM generate_series($6::int, $7::int) g`,
    [accountId, keyIds, end, spanMs, rows, first, last],
  );
const others = Math.max(0, totalRows - rows);
const otherAccounts: string[] = [];
if (others > 0) {
  const made = await services.db.query<{ id: string }>(`INSERT INTO accounts (name) SELECT 'scale-other-' || g FROM generate_series(1, ${OTHER_ACCOUNTS}) g RETURNING id`);
  otherAccounts.push(...made.rows.map((row) => row.id));
}
/** The other accounts' rows over the same days, each batch's rows spread over the accounts. */
const other = (first: number, last: number) =>
  services.db.query(
    `INSERT INTO usage_log (id, account_id, request_id, endpoint, requested_model, model, provider, status, http_status,
       input_tokens, output_tokens, cost_micros, latency_ms, agent_id, created_at)
     SELECT 'gen-other-' || g, ($1::uuid[])[1 + g % ${OTHER_ACCOUNTS}], 'req-' || g, 'chat.completions', 'openai/model-' || (g % ${MODELS}),
       'openai/model-' || (g % ${MODELS}), 'openai', CASE WHEN g % 200 < 11 THEN 'upstream_error' ELSE 'success' END,
       CASE WHEN g % 200 < 11 THEN 502 ELSE 200 END, 100 + g % 900, 50 + g % 400, CASE WHEN g % 200 < 11 THEN 0 ELSE 20 + g % 500 END, 200 + g % 1000,
       ${AGENT_OF_ROW}, to_timestamp(($2::float8 - $3::float8 + g * ($3::float8 / $4::float8)) / 1000)
     FROM generate_series($5::bigint, $6::bigint) g`,
    [otherAccounts, end, spanMs, others, first, last],
  );
// Both logs grow in time order together, as a shared log does: a batch of each, by turns.
const measuredBatches = Math.ceil(rows / CHUNK);
const otherBatches = Math.ceil(others / CHUNK);
const turns = Math.max(measuredBatches, otherBatches);
let measuredNext = 1;
let otherNext = 1;
for (let turn = 0; turn < turns; turn += 1) {
  const measuredUntil = Math.min(rows, Math.round(((turn + 1) * rows) / turns));
  if (measuredUntil >= measuredNext) await measured(measuredNext, measuredUntil);
  measuredNext = measuredUntil + 1;
  const otherUntil = Math.min(others, Math.round(((turn + 1) * others) / turns));
  if (otherUntil >= otherNext) await other(otherNext, otherUntil);
  otherNext = otherUntil + 1;
}
// Both engines as a log that grew over months is: vacuumed, analyzed, and its pages written
// out, so no checkpoint of the load falls inside the timed reads.
await services.db.query('VACUUM ANALYZE usage_log');
await services.db.query('CHECKPOINT');
await services.db.query('ANALYZE usage_daily_rollups');
await services.db.query('ANALYZE usage_half_hour_rollups');
await services.db.query('ANALYZE usage_quarter_hour_rollups');
const loadSeconds = (performance.now() - loadStarted) / 1000;

const { url, cookie } = await listenSignedIn(services, 'scale@example.com');
process.stdout.write(`${JSON.stringify({ url, key: created.key, provisioningKey: provisioning.key, cookie, keyId: keyIds[0], loadSeconds: loadSeconds.toFixed(1), engine: services.db.engine })}\n`);
const stop = () => {
  rmSync(configDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
