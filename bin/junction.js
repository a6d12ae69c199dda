#!/usr/bin/env node
// The CLI runs compiled, as `npm start` does (build/cli.js, built by `npm ci` and rebuilt by
// the check below when a source is newer): through tsx, every command first transpiled the
// ~240 source files it loads, about a second of each command on an idle machine.
import '../scripts/ensure-build.mjs';

await import('../build/cli.js');
