/**
 * Junction under benchmark: the real app with limits and billing on (a key with a
 * daily spend limit and a rate limit, an account with credit), on PGlite in a data folder
 * of its own (as `npm start` runs it; JUNCTION_DATA_DIR, e.g. `memory://`, overrides) or,
 * with DATABASE_URL, PostgreSQL. Prints its URL and a model key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdminCommand } from '../src/admin/admin-commands.ts';
import { buildApp } from '../src/app.ts';
import { readEnvConfig } from '../src/config/env-config.ts';
import { createServices } from '../src/assembly/services.ts';

const configDir = mkdtempSync(join(tmpdir(), 'junction-bench-'));
const configFile = join(configDir, 'junction.yaml');
const { writeFileSync } = await import('node:fs');
writeFileSync(configFile, 'models:\n  openai/bench-model:\n    capabilities: [chat]\n    max_output_tokens: 1024\n    prices: { input: 0.15, output: 0.6 }\n');

// An empty DATABASE_URL (how the runner asks for PGlite) means "not set".
if (!process.env.DATABASE_URL) delete process.env.DATABASE_URL;
const env = { ...process.env, OPENAI_API_KEY: 'upstream', OPENAI_BASE_URL: process.env.UPSTREAM_URL ?? '', JUNCTION_CONFIG: configFile, LOG_LEVEL: 'warn' };
// A folder, as `npm start` keeps the store. In memory (memory://) the engine's files are
// arrays of the JS heap: as the usage log grew under load, the engine's thread ran a full
// GC about every 0.5 s, against about every 1.5 s on a folder.
const config = readEnvConfig({ ...env, JUNCTION_DATA_DIR: process.env.JUNCTION_DATA_DIR ?? join(configDir, 'data') });
const services = await createServices(config, { env, loadAgents: false });
await runAdminCommand(services, { command: 'credits.grant', amount: '1000000', currency: 'USD' });
const created = (await runAdminCommand(services, { command: 'keys.create', kind: 'model', name: 'bench', dailyLimitUsd: 100000, rateLimitRpm: 100_000_000 })) as { key: string };
const app = await buildApp(services);
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url, key: created.key, engine: services.db.engine })}\n`);
// The config folder (and the data folder in it) goes with the process: every bench run starts several of these.
const stop = () => {
  rmSync(configDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
