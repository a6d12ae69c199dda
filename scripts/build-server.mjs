// Compiles the server (src/main.ts and what it imports) into build/ with esbuild, instead
// of running ~240 TypeScript files through tsx's loader thread at every start; the
// settings are in server-bundle.mjs.
import { bundleServer } from './server-bundle.mjs';

await bundleServer({ entryPoints: ['src/main.ts'], outdir: 'build' });
