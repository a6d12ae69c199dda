/**
 * Junction under the scale bench (bench/scale.ts): the real app, as bench/gateway-server.ts
 * starts it, with one account's usage log loaded to SCALE_ROWS rows before it listens: rows
 * in time order over 90 days, 20 keys, 30 models, 94.5% success, then analyzed, as issue 71
 * measured. Prints its URL, a model key, a provisioning key, a console session cookie and
 * how long the load took.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdminCommand } from '../src/admin/admin-commands.ts';
import { buildApp } from '../src/app.ts';
import { readEnvConfig } from '../src/config/env-config.ts';
import { issueSetupLink } from '../src/console/session-routes.ts';
import { createServices } from '../src/assembly/services.ts';

const rows = Number(process.env.SCALE_ROWS ?? 1_000_000);
const KEYS = 20;
const MODELS = 30;
const DAYS = 90;
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
for (let first = 1; first <= rows; first += CHUNK) {
  const last = Math.min(rows, first + CHUNK - 1);
  // Row g of N at end - span + g × span / N: in time order, the newest now. 5.5% are not successes.
  await services.db.query(
    `INSERT INTO usage_log (id, account_id, key_id, request_id, endpoint, requested_model, model, provider, status, http_status,
       input_tokens, output_tokens, cost_micros, latency_ms, created_at)
     SELECT 'gen-scale-' || g, $1::uuid, ($2::uuid[])[1 + g % ${KEYS}], 'req-' || g, 'chat.completions', 'openai/model-' || (g % ${MODELS}),
       'openai/model-' || (g % ${MODELS}), 'openai', CASE WHEN g % 200 < 11 THEN 'upstream_error' ELSE 'success' END,
       CASE WHEN g % 200 < 11 THEN 502 ELSE 200 END, 100 + g % 900, 50 + g % 400, CASE WHEN g % 200 < 11 THEN 0 ELSE 20 + g % 500 END, 200 + g % 1000,
       to_timestamp(($3::float8 - $4::float8 + g * ($4::float8 / $5::float8)) / 1000)
     FROM generate_series($6::int, $7::int) g`,
    [accountId, keyIds, end, spanMs, rows, first, last],
  );
}
await services.db.query(services.db.engine === 'postgres' ? 'VACUUM ANALYZE usage_log' : 'ANALYZE usage_log');
await services.db.query('ANALYZE usage_daily_rollups');
const loadSeconds = (performance.now() - loadStarted) / 1000;

const app = await buildApp(services);
const url = await app.listen({ host: '127.0.0.1', port: 0 });
const link = await issueSetupLink(services.db, url, new Date());
const token = new URL(link as string).searchParams.get('token') ?? '';
const setup = await app.inject({
  method: 'POST',
  url: '/console/api/setup',
  headers: { origin: url, host: new URL(url).host },
  payload: { token, email: 'scale@example.com', password: 'correct horse battery' },
});
const cookie = /junction_session=[^;]+/.exec(String(setup.headers['set-cookie']))?.[0] ?? '';
process.stdout.write(`${JSON.stringify({ url, key: created.key, provisioningKey: provisioning.key, cookie, keyId: keyIds[0], loadSeconds: loadSeconds.toFixed(1), engine: services.db.engine })}\n`);
const stop = () => {
  rmSync(configDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
