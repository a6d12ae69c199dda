// `npm start` and the `junction` CLI run the compiled server (build/), and the server serves
// the console from web/dist. `npm ci` builds both (the root `prepare` script); this covers a
// checkout where the build was skipped (--ignore-scripts) and a source edit since the last
// build, so neither ever runs stale code. The server build takes well under a second.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** What build-server.mjs makes: the server and the CLI. */
const OUTPUTS = ['build/main.js', 'build/cli.js'];
/** Held while one process rebuilds: CLI commands often start several at once (scripts, tests). */
const LOCK = join(root, 'build.lock');
/** Longer than a build of the console and the server on a loaded machine; a lock older than this is a builder that died. */
const LOCK_WAIT_MS = 180_000;

const newestSource = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name);
    return Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }, 0);

const consoleBuilt = () => existsSync(join(root, 'web/dist/index.html'));

function isServerCurrent() {
  const sourceTime = Math.max(newestSource(join(root, 'src')), statSync(join(root, 'package-lock.json')).mtimeMs);
  return OUTPUTS.every((output) => {
    const path = join(root, output);
    return existsSync(path) && statSync(path).mtimeMs >= sourceTime;
  });
}

/** Takes the lock (a folder: made atomically or not at all), taking over one left by a builder that died. */
function lock() {
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const heldSince = existsSync(LOCK) ? statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs : undefined;
    if (heldSince !== undefined && Date.now() - heldSince > LOCK_WAIT_MS) rmSync(LOCK, { recursive: true, force: true });
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  }
}

if (!consoleBuilt() || !isServerCurrent()) {
  lock();
  try {
    // Another process may have built them while this one waited.
    if (!consoleBuilt()) execFileSync(npm, ['run', 'build:web'], { stdio: 'inherit', cwd: root });
    if (!isServerCurrent()) execFileSync(process.execPath, [join(root, 'scripts/build-server.mjs')], { stdio: 'inherit', cwd: root });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
