// Runs pglite-worker.ts from its TypeScript source (tests, the bench's tsx scripts): a
// worker thread does not inherit the loader that runs .ts files, so it registers tsx's
// first. The compiled server starts build/pglite-worker.js instead.
import { register } from 'tsx/esm/api';

register();
await import('./pglite-worker.ts');
