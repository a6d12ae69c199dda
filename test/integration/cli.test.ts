import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnvConfig } from '../../src/config/env-config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { freshStorage } from '../support/test-database.ts';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/junction.js');

/**
 * The CLI against the store a server is using at the same time: on PGlite through
 * the server's admin socket, on PostgreSQL directly.
 */
let server: RunningServer;
let env: Record<string, string>;
let dataDir: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'junction-cli-'));
  const storage = await freshStorage();
  drop = storage.drop;
  env = {
    JUNCTION_DATA_DIR: dataDir,
    ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : {}),
    LOG_LEVEL: 'silent',
  };
  server = await startServer(readEnvConfig({ ...env, PORT: '0' }));
}, 60_000);
afterAll(async () => {
  await server.stop();
  await drop();
  rmSync(dataDir, { recursive: true, force: true });
});

function withoutDatabaseUrl(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _ignored, ...rest } = process.env;
  return rest;
}

async function cli(...args: string[]): Promise<string> {
  const result = await run(process.execPath, [BIN, ...args], { env: { ...withoutDatabaseUrl(), ...env }, timeout: 60_000 });
  return result.stdout;
}

describe('npx junction', () => {
  it('creates keys the running server accepts, grants credit and disables keys', async () => {
    const created = JSON.parse(await cli('keys', 'create', '--kind', 'model', '--name', 'cli-key', '--daily-limit-usd', '2.5', '--json'));
    expect(created.key).toMatch(/^sk-jn-/);
    expect(created.data).toMatchObject({ name: 'cli-key', daily_limit_usd: 2.5 });

    const headers = { authorization: `Bearer ${created.key}` };
    const status = await fetch(`${server.url}/v1/key`, { headers });
    expect(status.status).toBe(200);

    const grant = JSON.parse(await cli('credits', 'grant', '--amount', '12', '--currency', 'GBP', '--json'));
    expect(grant.data).toMatchObject({ currency: 'GBP', usd_equivalent: 15.24 });
    const credits = (await (await fetch(`${server.url}/v1/credits`, { headers })).json()) as { data: { total_credits: number } };
    expect(credits.data.total_credits).toBe(15.24);

    const listed = JSON.parse(await cli('keys', 'list', '--json'));
    expect(listed.data.map((key: { name: string }) => key.name)).toContain('cli-key');
    expect(JSON.stringify(listed)).not.toContain(created.key.slice(6));

    await cli('keys', 'disable', created.data.id);
    const refused = await fetch(`${server.url}/v1/credits`, { headers });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('key_disabled');
  });

  it('creates accounts whose keys see only their own credit', async () => {
    const account = JSON.parse(await cli('accounts', 'create', '--name', 'team-b', '--json'));
    const key = JSON.parse(await cli('keys', 'create', '--kind', 'model', '--name', 'b', '--account', account.data.id, '--json'));
    await cli('credits', 'grant', '--amount', '3', '--currency', 'USD', '--account', account.data.id);
    const credits = (await (await fetch(`${server.url}/v1/credits`, { headers: { authorization: `Bearer ${key.key}` } })).json()) as { data: { total_credits: number } };
    expect(credits.data.total_credits).toBe(3);
  });

  it('indexes knowledge incrementally, with progress', async () => {
    const first = JSON.parse(await cli('knowledge', 'index', '--json'));
    const handbook = first.data[0].collections.find((collection: { collection: string }) => collection.collection === 'handbook');
    expect(handbook.documentsTotal).toBeGreaterThan(3);
    expect(handbook.chunksTotal).toBeGreaterThan(handbook.documentsTotal - 1);
    // Piped (as here), progress and summary are plain lines: no redraws, no escapes, no JSON.
    const { stdout, stderr } = await run(process.execPath, [BIN, 'knowledge', 'index'], { env: { ...withoutDatabaseUrl(), ...env }, timeout: 60_000 });
    expect(stderr).toMatch(/^handbook: (\d+)\/\1 documents, \d+ chunks? embedded, \d+ reused$/m);
    expect(stdout).toMatch(
      new RegExp(
        `^account ${first.data[0].account}\n  handbook: ${handbook.documentsTotal} documents, ${handbook.chunksTotal} chunks \\(0 embedded, ${handbook.chunksTotal} reused\\), 0 documents removed$`,
        'm',
      ),
    );
    expect(stdout).toMatch(/^embedding model: none/m);
    for (const output of [stdout, stderr]) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: an escape character in the output is what this looks for
      expect(output).not.toMatch(/[\r\x1b{│┌]/);
      expect(output.endsWith('\n')).toBe(true);
    }
    const again = JSON.parse(await cli('knowledge', 'index', '--json'));
    const unchanged = again.data[0].collections.find((collection: { collection: string }) => collection.collection === 'handbook');
    expect(unchanged.chunksEmbedded).toBe(0);
    expect(unchanged.chunksTotal).toBe(handbook.chunksTotal);
  });

  it('fails with a clear message and exit code on bad input', async () => {
    await expect(cli('keys', 'create', '--kind', 'root', '--name', 'x')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--kind must be') });
  });

  it('refuses a bad number in one sentence naming the option and what it expects', async () => {
    const refusals: Array<[string[], string]> = [
      [['credits', 'grant', '--amount', 'abc', '--currency', 'USD'], '--amount expects an amount such as 12 or 9.99 (digits, at most 6 decimals), not "abc".'],
      [['keys', 'create', '--kind', 'model', '--name', 'x', '--total-limit-usd', '-5'], '--total-limit-usd expects a USD amount of 0 or more, such as 5 or 2.50, not "-5".'],
      [['keys', 'create', '--kind', 'model', '--name', 'x', '--rate-limit-rpm', '0'], '--rate-limit-rpm expects a whole number of requests per minute above 0, not "0".'],
      [['keys', 'create', '--kind', 'model', '--name', 'x', '--expires-at', 'tomorrow'], '--expires-at expects an ISO-8601 date and time with its zone, such as 2030-01-31T00:00:00Z, not "tomorrow".'],
      [['credits', 'grant', '--amount', '5', '--currency', 'dollars'], '--currency expects a three-letter currency code such as USD or EUR, not "dollars".'],
    ];
    for (const [args, sentence] of refusals) {
      await expect(cli(...args), args.join(' ')).rejects.toMatchObject({ code: 1, stdout: '', stderr: `junction: ${sentence}\n` });
    }
    const listed = JSON.parse(await cli('keys', 'list', '--json')) as { data: Array<{ name: string }> };
    expect(listed.data.map((key) => key.name)).not.toContain('x');
  });
});
