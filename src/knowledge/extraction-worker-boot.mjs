// Runs extraction-worker.ts from its TypeScript source (tests, tsx): a worker thread does
// not inherit the loader that runs .ts files, so it registers tsx's first. The compiled
// server starts build/extraction-worker.js instead.
import { register } from 'tsx/esm/api';

register();
await import('./extraction-worker.ts');
