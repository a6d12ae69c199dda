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
 *
 * Fixing the mmap threshold also leaves the trim threshold (how much free memory at the
 * top of a heap glibc keeps before giving it back) at its first 128 KiB, where it too would
 * have grown. At 128 KiB the start, which frees and allocates again a great deal, kept
 * handing pages back and faulting them in anew: 0.8 s more CPU and 0.3-0.4 s more to ready
 * on the embedded store than with neither setting. At 4 MiB (five starts of each, taken in turn): ready in 1.34-1.58
 * s against 1.65-1.96, RSS 3 s after ready 215-239 MB against 204-216 (with neither set:
 * 1.24-1.37 s and 231-252 MB).
 */
export const ALLOCATOR_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '4194304' };

/** ALLOCATOR_ENV's settings where `env` has none of its own. */
export function allocatorDefaults(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(ALLOCATOR_ENV).filter(([name]) => env[name] === undefined));
}
