/**
 * glibc malloc's settings for a server process. They are read from the environment when
 * the process starts, before any JavaScript runs, so they must be there already: `npm
 * start` sets them in package.json's script (keeping a value the caller set), the cluster
 * primary passes them to the workers it forks, and the bench gives them to the servers it
 * measures.
 *
 * Why: glibc serves an allocation above its mmap threshold (128 KiB at first) from its own
 * mapping and returns it to the system on free, but every such free raises the threshold,
 * up to 32 MiB. Starting the server frees many large blocks, so the threshold climbs and
 * later large blocks land in malloc's arenas, where freed memory stays resident. A fixed
 * threshold keeps the first behaviour, and a server that starts small stays small.
 *
 * Fixing the mmap threshold also leaves the trim threshold (how much free memory at the
 * top of a heap glibc keeps before giving it back) at 128 KiB, where the start, which frees
 * and allocates again a great deal, keeps handing pages back and faulting them in anew; at
 * 4 MiB it does not, and memory still goes back once the server is idle.
 */
export const ALLOCATOR_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '4194304' };

/** ALLOCATOR_ENV's settings where `env` has none of its own. */
export function allocatorDefaults(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(ALLOCATOR_ENV).filter(([name]) => env[name] === undefined));
}
