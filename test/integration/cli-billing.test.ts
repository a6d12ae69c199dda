import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/run-command.ts';
import { TEST_CONFIG, UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { startFakeOpenAIUpstream } from '../support/fake-openai-upstream.ts';
import { freshStorage } from '../support/test-database.ts';

/**
 * Operator commands that spend (knowledge indexing with an embedding model) run in the
 * CLI's own process when no server holds the store: their reservations need budget
 * leases, which hang off a registered process.
 */
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let dataDir: string;
let drop: () => Promise<void>;
const savedEnv = { ...process.env };

beforeAll(async () => {
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai });
  dataDir = mkdtempSync(join(tmpdir(), 'junction-cli-billing-'));
  const storage = await freshStorage();
  drop = storage.drop;
  delete process.env.DATABASE_URL;
  Object.assign(process.env, {
    LOG_LEVEL: 'silent',
    JUNCTION_DATA_DIR: dataDir,
    ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : {}),
    OPENAI_API_KEY: UPSTREAM_KEYS.openai,
    OPENAI_BASE_URL: upstream.url,
    JUNCTION_CONFIG: TEST_CONFIG,
    JUNCTION_EMBEDDING_MODEL: 'openai/test-native-embed',
    JUNCTION_KNOWLEDGE_DIR: fileURLToPath(new URL('../../knowledge', import.meta.url)),
  });
}, 60_000);

afterAll(async () => {
  // Put back in place (not a new object): later test files run in this process (vitest.config.ts).
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
  Object.assign(process.env, savedEnv);
  await upstream.close();
  await drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the CLI on a store no server holds', () => {
  it('indexes knowledge with an embedding model and bills the account', async () => {
    await runCommand({ command: 'credits.grant', amount: '5', currency: 'USD' });
    const report = (await runCommand({ command: 'knowledge.index' })) as { data: Array<{ collections: Array<{ chunksEmbedded: number }> }> };
    const embedded = report.data[0]?.collections.reduce((sum, collection) => sum + collection.chunksEmbedded, 0) ?? 0;
    expect(embedded).toBeGreaterThan(0);
    const credits = (await runCommand({ command: 'credits.show' })) as { data: { total_usage: number; balance_usd: number } };
    expect(credits.data.total_usage).toBeGreaterThan(0);
    expect(credits.data.balance_usd).toBeLessThan(5);
  }, 60_000);
});
