import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/** The CLI never prints a key made in a throwaway in-memory store that no server knows. */
const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/junction.js');

describe('npx junction with JUNCTION_DATA_DIR=memory://', () => {
  it('refuses with a clear error and a non-zero exit', async () => {
    const { DATABASE_URL: _ignored, ...env } = process.env;
    const outcome = await run(process.execPath, [BIN, 'keys', 'create', '--kind', 'model', '--name', 'lost', '--json'], {
      env: { ...env, JUNCTION_DATA_DIR: 'memory://', LOG_LEVEL: 'silent' },
      timeout: 60_000,
    }).then(
      (result) => ({ code: 0, stdout: result.stdout, stderr: result.stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
    console.log(`[chaos] memory:// CLI: exit ${outcome.code}; ${outcome.stderr.trim()}`);
    expect(outcome.code).not.toBe(0);
    expect(outcome.stdout).not.toMatch(/sk-jn-/);
    expect(outcome.stderr).toMatch(/memory:\/\//);
  });
});
