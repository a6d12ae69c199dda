// Compiles the server (src/main.ts) and the CLI (src/cli/cli.ts), with what they import,
// into build/ with esbuild, instead of running ~240 TypeScript files through tsx's loader
// at every start and every CLI command; the settings are in server-bundle.mjs.
import { bundleServer } from './server-bundle.mjs';

await bundleServer({
  entryPoints: [
    { in: 'src/main.ts', out: 'main' },
    { in: 'src/cli/cli.ts', out: 'cli' },
  ],
  outdir: 'build',
});
