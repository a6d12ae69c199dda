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
    // modules it has loaded: importing the app afresh for every file was over half of the
    // suite's wall time. Files share no state through this: each makes its own store,
    // servers and folders and closes them, and one that changes process.env puts it back.
    isolate: false,
  },
});
