import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
 * `npx junction datasets import | export | list` against the store a running server uses
 * (on PGlite through its admin socket, on PostgreSQL directly): an import exported again
 * gives the same cases, and a file with a bad line adds nothing.
 */
let server: RunningServer;
let env: Record<string, string>;
let dataDir: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'junction-cli-datasets-'));
  const storage = await freshStorage();
  drop = storage.drop;
  env = { JUNCTION_DATA_DIR: dataDir, ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : {}), LOG_LEVEL: 'silent' };
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

const cli = (...args: string[]) => run(process.execPath, [BIN, ...args], { env: { ...withoutDatabaseUrl(), ...env }, timeout: 60_000 });

const CASES = [
  { input: 'Can I return a lamp?', reference: 'Yes, within 30 days.', tags: ['refunds'] },
  {
    input: [
      { role: 'user', content: 'My order is late' },
      { role: 'assistant', content: 'Which order?' },
      { role: 'user', content: 'Number 42' },
    ],
    expect: { tool_calls: [{ name: 'order_status', arguments: { id: '42' } }], must_not_contain: ['sorry'] },
  },
  { input: 'Ünïcode and "quotes" \\ too', reference: 'ok' },
];

describe('npx junction datasets', () => {
  it('imports a JSONL file and exports the same cases, to a file and to standard output', async () => {
    const file = join(dataDir, 'cases.jsonl');
    writeFileSync(file, `${CASES.map((entry) => JSON.stringify(entry)).join('\n')}\n`);
    const imported = await cli('datasets', 'import', '--name', 'refunds', '--file', file);
    expect(imported.stdout).toMatch(/^imported 3 cases into refunds \(ds_[0-9a-f]+\)\n$/);

    const out = join(dataDir, 'out.jsonl');
    const exported = await cli('datasets', 'export', '--name', 'refunds', '--file', out);
    expect(exported.stderr).toContain(`wrote 3 cases of refunds to ${out}`);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(CASES);
    expect((await cli('datasets', 'export', '--name', 'refunds')).stdout).toBe(readFileSync(out, 'utf8'));

    // A second import appends to the dataset of that name.
    await cli('datasets', 'import', '--name', 'refunds', '--file', file);
    const listed = JSON.parse((await cli('datasets', 'list', '--json')).stdout) as { data: { name: string; cases: number }[] };
    expect(listed.data).toEqual([expect.objectContaining({ name: 'refunds', cases: 6 })]);
  });

  it('refuses a file with a bad line, naming it, and adds nothing', async () => {
    const file = join(dataDir, 'bad.jsonl');
    writeFileSync(file, `${JSON.stringify({ input: 'fine' })}\n${JSON.stringify({ input: 'fine too' })}\n{"reference": "no input"}\n`);
    const failed = await cli('datasets', 'import', '--name', 'broken', '--file', file).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain("bad.jsonl: Line 3, 'input'");
    const listed = JSON.parse((await cli('datasets', 'list', '--json')).stdout) as { data: { name: string }[] };
    expect(listed.data.map((dataset) => dataset.name)).toEqual(['refunds']);
    const missing = await cli('datasets', 'export', '--name', 'broken').then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(missing?.stderr).toContain("no dataset named 'broken'");
  });
});
