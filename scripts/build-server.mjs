// Compiles the server (src/main.ts and what it imports) into build/ with esbuild: one
// module plus a chunk per lazily imported part, instead of ~240 TypeScript files run
// through tsx's loader thread at every start. Packages stay external (node_modules).
// Output files sit directly in build/, one level below the root like src/, which
// src/project-root.ts relies on.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const outdir = new URL('build/', root).pathname;
rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root.pathname,
  entryPoints: ['src/main.ts'],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: '[name]-[hash]',
  sourcemap: 'linked',
  logLevel: 'warning',
});
