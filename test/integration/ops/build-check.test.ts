import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The CLI runs the compiled build (build/cli.js) and, like `npm start`, builds it first when
 * it is missing or older than a source file. Several commands started at once on a stale
 * build (a script, a test run) must all run, and find the build whole (one builds while the
 * others wait on build.lock; a build removes the folder first).
 * Runs in a copy of the project, so the build the other tests use is never touched.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../../..');
let copy: string;

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'junction-build-check-'));
  for (const part of ['src', 'scripts', 'bin', 'migrations', 'package.json', 'package-lock.json']) cpSync(join(ROOT, part), join(copy, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  // The console's bundle is not what this checks: its presence keeps the check from running vite.
  mkdirSync(join(copy, 'web/dist'), { recursive: true });
  writeFileSync(join(copy, 'web/dist/index.html'), '<!doctype html>');
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const help = () => run(process.execPath, [join(copy, 'bin/junction.js'), '--help'], { cwd: copy, timeout: 120_000 });

describe('the CLI on a missing or stale build', () => {
  it('builds it when missing, and every one of several commands started together runs', async () => {
    expect(existsSync(join(copy, 'build/cli.js'))).toBe(false);
    const outputs = await Promise.all([help(), help(), help()]);
    for (const output of outputs) expect(output.stdout).toContain('Usage: junction');
    expect(existsSync(join(copy, 'build/cli.js'))).toBe(true);
    expect(existsSync(join(copy, 'build/main.js'))).toBe(true);
    expect(existsSync(join(copy, 'build.lock'))).toBe(false);
  });

  it('rebuilds after a source edit, before the command runs', async () => {
    const source = join(copy, 'src/cli/cli.ts');
    const now = new Date();
    utimesSync(source, now, now);
    expect(statSync(join(copy, 'build/cli.js')).mtimeMs).toBeLessThan(statSync(source).mtimeMs);
    const outputs = await Promise.all([help(), help()]);
    for (const output of outputs) expect(output.stdout).toContain('Usage: junction');
    expect(statSync(join(copy, 'build/cli.js')).mtimeMs).toBeGreaterThanOrEqual(statSync(source).mtimeMs - 1);
    expect(existsSync(join(copy, 'build.lock'))).toBe(false);
  });

  it('takes over a lock left by a build that died, and waits on one that is recent', async () => {
    const source = join(copy, 'src/cli/cli.ts');
    const lock = join(copy, 'build.lock');
    const now = new Date();
    utimesSync(source, now, now);
    mkdirSync(lock);
    const longAgo = new Date(Date.now() - 3_600_000);
    utimesSync(lock, longAgo, longAgo);
    expect((await help()).stdout).toContain('Usage: junction');
    expect(existsSync(lock)).toBe(false);

    // A recent lock holds the command until its holder lets go.
    const later = new Date(Date.now() + 1_000);
    utimesSync(source, later, later);
    mkdirSync(lock);
    let finished = false;
    const waiting = help().then((output) => {
      finished = true;
      return output;
    });
    await new Promise((done) => setTimeout(done, 1_500));
    expect(finished).toBe(false);
    rmSync(lock, { recursive: true });
    expect((await waiting).stdout).toContain('Usage: junction');
  });
});
