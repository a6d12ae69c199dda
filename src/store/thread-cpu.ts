import { readFileSync, readlinkSync } from 'node:fs';

/**
 * The CPU time of one thread of this process, read by any of its threads. The embedded
 * engine runs on a thread of the server's process, so the process's CPU counts the
 * database's work with the server's; this is how that part is told apart (for the
 * metrics and the bench), as PostgreSQL's work is its own processes'.
 *
 * Linux only: a thread finds its own id through /proc/thread-self, and its CPU time is the
 * first field of its `schedstat` (nanoseconds on a CPU, user and system, without the
 * clock-tick rounding of `stat`). Elsewhere both functions answer undefined.
 */

/** Where the calling thread's CPU time can be read, by this thread or another of the process; undefined off Linux. */
export function ownThreadCpuFile(): string | undefined {
  try {
    // "<pid>/task/<tid>", relative to /proc.
    return `/proc/${readlinkSync('/proc/thread-self')}/schedstat`;
  } catch {
    return undefined;
  }
}

/** Seconds of CPU the thread behind `file` (from ownThreadCpuFile) has used; undefined once it has ended or where it cannot be read. */
export function threadCpuSeconds(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch {
    return undefined;
  }
  const end = text.indexOf(' ');
  const nanoseconds = end > 0 ? Number(text.slice(0, end)) : Number.NaN;
  return Number.isFinite(nanoseconds) && nanoseconds >= 0 ? nanoseconds / 1e9 : undefined;
}
