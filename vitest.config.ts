import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // PGlite boots a WASM Postgres per test file, and CLI tests spawn processes: room for loaded CI machines.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // Each of the two workers runs its files one after another in one process, keeping the
    // modules it has loaded: importing the app afresh for every file was about 2.4 s of a
    // worker's time per file, over half of the suite's wall time (PGlite pass 388 → 248-272 s,
    // PostgreSQL pass 142 s, on 2026-12-03; README, Tests). Files share no state through this:
    // each makes its own store, servers and folders and closes them, and the one that changes
    // process.env (cli-billing) puts it back.
    isolate: false,
  },
});
