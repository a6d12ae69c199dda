// `npm start` runs the compiled server (build/) and serves the console from web/dist.
// `npm ci` builds both (the root `prepare` script); this covers a checkout where the build
// was skipped (--ignore-scripts) and a source edit since the last build, so `npm start`
// never runs stale code. The server build takes well under a second.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

if (!existsSync(join(root, 'web/dist/index.html'))) {
  execFileSync(npm, ['run', 'build:web'], { stdio: 'inherit', cwd: root });
}

const newestSource = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name);
    return Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }, 0);
const built = join(root, 'build/main.js');
const sourceTime = Math.max(newestSource(join(root, 'src')), statSync(join(root, 'package-lock.json')).mtimeMs);
if (!existsSync(built) || statSync(built).mtimeMs < sourceTime) {
  execFileSync(process.execPath, [join(root, 'scripts/build-server.mjs')], { stdio: 'inherit', cwd: root });
}
