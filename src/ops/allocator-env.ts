/**
 * glibc malloc's settings for a server process. They are read from the environment when
 * the process starts, before any JavaScript runs, so they must be there already: `npm
 * start` sets them in package.json's script (keeping a value the caller set), the cluster
 * primary passes them to the workers it forks, and the bench gives them to the servers it
 * measures.
 *
 * Why: glibc serves an allocation above its mmap threshold (128 KiB at first) from its own
 * mapping and returns it to the system on free, but every such free raises the threshold
 * to that size, up to 32 MiB. Starting the server frees many large blocks (37 MB of freed
 * memory stayed in a process that only opened the embedded engine, whose WASM is compiled
 * on background threads), so the threshold climbs and later large blocks land in malloc's
 * arenas, where freed memory stays resident. Calling malloc_trim(0) on an idle server (from
 * gdb) gave back 67 MB of its 282 MB on the embedded store. A fixed threshold keeps the
 * first behaviour: in the footprint bench, idle RSS on the embedded store 30 s after ready
 * went from 243-251 MB to 190-213 MB (README, "Memory" and "Benchmarks").
 */
export const ALLOCATOR_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** ALLOCATOR_ENV's settings where `env` has none of its own. */
export function allocatorDefaults(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(ALLOCATOR_ENV).filter(([name]) => env[name] === undefined));
}
