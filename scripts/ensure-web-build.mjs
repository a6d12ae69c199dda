// `npm start` serves the console from web/dist. `npm ci` builds it (the root `prepare`
// script); this covers a checkout where the build was skipped (e.g. --ignore-scripts).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (!existsSync(new URL('../web/dist/index.html', import.meta.url))) {
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build:web'], { stdio: 'inherit' });
}
