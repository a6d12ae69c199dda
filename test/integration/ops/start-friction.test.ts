import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOCATOR_ENV } from '../../../src/ops/allocator-env.ts';
import { environmentOf, withoutAllocatorSettings } from '../../support/process-environment.ts';

/**
 * A first start that explains itself, run as `npm start` runs the server (the compiled
 * build/): a second server on the same embedded store, a busy port and a bad variable
 * each print one line and exit 1 (no stack trace, no engine dump); a store left behind
 * by `kill -9` starts again; SIGTERM to `npm start` stops the server it started, which
 * runs with glibc's allocator settings (src/ops/allocator-env.ts).
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../../..');
const MAIN = join(ROOT, 'build/main.js');
let dataDir: string;
/** A second store folder, for the busy-port start (its store is made before the port is found busy). */
let otherDataDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  await run(process.execPath, [join(ROOT, 'scripts/ensure-build.mjs')], { cwd: ROOT, timeout: 120_000 });
  dataDir = mkdtempSync(join(tmpdir(), 'junction-start-'));
  otherDataDir = mkdtempSync(join(tmpdir(), 'junction-start-other-'));
});
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(otherDataDir, { recursive: true, force: true });
});

const baseEnv = (): NodeJS.ProcessEnv => {
  const { DATABASE_URL: _ignored, ...rest } = process.env;
  return { ...rest, HOST: '127.0.0.1', PORT: '0', JUNCTION_DATA_DIR: dataDir, JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent', LOG_LEVEL: 'warn' };
};

/** Starts `command`, resolving with its pid and URL once it logs that it is ready. */
function serve(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; pid: number; url: string }> {
  const child = spawn(command, args, { env: { ...env, LOG_LEVEL: 'info' }, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const output: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready:\n${output.join('')}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      output.push(line);
      const ready = /"pid":(\d+).*"url":"(http:[^"]+)".*"msg":"junction is ready"/.exec(line);
      if (ready?.[1] && ready[2]) resolve({ child, pid: Number(ready[1]), url: ready[2] });
    });
  });
}

/** A start expected to fail: its exit code and what it wrote to stderr. */
async function failingStart(env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  return run(process.execPath, [MAIN], { env, cwd: ROOT, timeout: 60_000 }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('start-up that explains itself', () => {
  it('refuses a second server on the same embedded store in one line, and the first keeps serving', async () => {
    const first = await serve(process.execPath, [MAIN], baseEnv());
    const second = await failingStart(baseEnv());
    expect(second.code).toBe(1);
    expect(second.stderr.trim().split('\n')).toEqual([
      `junction: another Junction (pid ${first.pid}) is using ${dataDir}. Stop it first, or leave it serving and run CLI commands against it (they go through its admin socket), or set JUNCTION_DATA_DIR to another folder.`,
    ]);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);

    // A busy port: one line naming it.
    const port = new URL(first.url).port;
    const busy = await failingStart({ ...baseEnv(), PORT: port, JUNCTION_DATA_DIR: otherDataDir });
    expect(busy.code).toBe(1);
    expect(busy.stderr.trim().split('\n')).toEqual([`junction: port ${port} on 127.0.0.1 is in use (another server?); stop it or set PORT to a free port.`]);

    // Killed without a chance to clean up: its lock is stale and the next start takes the store.
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const next = await serve(process.execPath, [MAIN], baseEnv());
    expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
    next.child.kill('SIGTERM');
    await new Promise((resolve) => next.child.once('exit', resolve));
  });

  it('names a bad variable in one line', async () => {
    const bad = await failingStart({ ...baseEnv(), PORT: 'eighty' });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual(['junction: invalid environment: PORT: Invalid input: expected number, received NaN']);
    const cors = await failingStart({ ...baseEnv(), JUNCTION_CORS_ORIGINS: 'app.example.com' });
    expect(cors.stderr.trim()).toMatch(/^junction: invalid environment: JUNCTION_CORS_ORIGINS: 'app.example.com' is not an origin/);
    // The store's variables are read before the rest (the store starts opening first): same one line.
    const emptyUrl = await failingStart({ ...baseEnv(), DATABASE_URL: '' });
    expect(emptyUrl.stderr.trim().split('\n')).toEqual(['junction: invalid environment: DATABASE_URL: is empty (unset it to use the embedded store)']);
    const pool = await failingStart({ ...baseEnv(), JUNCTION_PGLITE_SHARED_BUFFERS: '4GB' });
    expect(pool.stderr.trim().split('\n')).toEqual(["junction: invalid environment: JUNCTION_PGLITE_SHARED_BUFFERS: '4GB' is not a size from 8MB to 1GB (write it as 64MB, 512MB or 1GB)"]);
  });

  it('stops the server when `npm start` gets SIGTERM, leaving no orphan', async () => {
    const npm = await serve('npm', ['start', '--silent'], withoutAllocatorSettings(baseEnv()));
    // Read while it runs, checked once it is stopped: a failed check must not leave the server behind.
    const environment = process.platform === 'linux' ? environmentOf(npm.pid) : undefined;
    npm.child.kill('SIGTERM');
    const exitCode = await new Promise<number | null>((resolve) => npm.child.once('exit', resolve));
    for (let waited = 0; isAlive(npm.pid) && waited < 10_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(npm.pid).not.toBe(npm.child.pid);
    expect(exitCode).toBe(0);
    expect(isAlive(npm.pid)).toBe(false);
    // The allocator settings are read by glibc as the process starts: the script sets them.
    if (environment) expect(environment).toMatchObject(ALLOCATOR_ENV);
  });

  it.skipIf(process.platform !== 'linux')('keeps allocator settings the caller gave `npm start`', async () => {
    const npm = await serve('npm', ['start', '--silent'], { ...baseEnv(), JUNCTION_DATA_DIR: 'memory://', MALLOC_MMAP_THRESHOLD_: '262144' });
    const environment = environmentOf(npm.pid);
    npm.child.kill('SIGTERM');
    await new Promise((resolve) => npm.child.once('exit', resolve));
    expect(environment.MALLOC_MMAP_THRESHOLD_).toBe('262144');
  });
});
