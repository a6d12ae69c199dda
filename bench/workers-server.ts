/**
 * Junction with `--workers 2` under benchmark (PostgreSQL only: workers share one
 * database): prepares the store like gateway-server.ts (credit, a limited key), then
 * starts the cluster primary and prints its URL and key once both workers listen.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { runAdminCommand } from '../src/admin/admin-commands.ts';
import { readEnvConfig } from '../src/config/env-config.ts';
import { createServices } from '../src/assembly/services.ts';

const configDir = mkdtempSync(join(tmpdir(), 'junction-bench-workers-'));
const configFile = join(configDir, 'junction.yaml');
writeFileSync(configFile, 'models:\n  openai/bench-model:\n    capabilities: [chat]\n    max_output_tokens: 1024\n    prices: { input: 0.15, output: 0.6 }\n');
const env = { ...process.env, OPENAI_API_KEY: 'upstream', OPENAI_BASE_URL: process.env.UPSTREAM_URL ?? '', JUNCTION_CONFIG: configFile, LOG_LEVEL: 'warn', JUNCTION_LOG_FORMAT: 'json' };
const services = await createServices(readEnvConfig(env), { env, loadAgents: false, registerProcess: false });
await runAdminCommand(services, { command: 'credits.grant', amount: '1000000', currency: 'USD' });
const created = (await runAdminCommand(services, { command: 'keys.create', kind: 'model', name: 'bench', dailyLimitUsd: 100000, rateLimitRpm: 100_000_000 })) as { key: string };
await services.close();

// The compiled server, as `npm start` runs it (ensure-build compiles it when a source is newer).
execFileSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'inherit' });
const primary = spawn(process.execPath, ['build/main.js'], { env: { ...env, JUNCTION_WORKERS: process.env.BENCH_WORKERS ?? '2', PORT: '0', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
const workers = Number(process.env.BENCH_WORKERS ?? 2);
let ready = 0;
// Keeps reading the primary's output (a closed pipe would stop the workers).
createInterface({ input: primary.stdout as NodeJS.ReadableStream }).on('line', (line) => {
  const url = /"url":"(http:[^"]+)"/.exec(line)?.[1];
  if (url && line.includes('junction is ready') && (ready += 1) === workers) process.stdout.write(`${JSON.stringify({ url, key: created.key, engine: 'postgres', workers })}\n`);
});
const stop = () => {
  primary.kill('SIGTERM');
  primary.once('exit', () => {
    // The config folder goes with the process (the workers read it until they exit).
    rmSync(configDir, { recursive: true, force: true });
    process.exit(0);
  });
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
