import { fsyncSync } from 'node:fs';
import type { StoreDurabilityCounters } from './store-durability-counters.ts';

/** An open NODEFS file or folder: `nfd` is Node's descriptor for it. */
type NodefsStream = { nfd?: number };

/** The parts of Emscripten's NODEFS an fsync uses. Every NODEFS stream shares one `stream_ops`. */
export type NodefsSync = {
  stream_ops: { fsync?(stream: NodefsStream): number };
  /** Runs a Node file call, turning its error into the engine's errno (ErrnoError). */
  tryFSOperation<T>(operation: () => T): T;
};

/**
 * Gives Emscripten's NODEFS the fsync it lacks. PostgreSQL makes a commit durable by
 * fsyncing the WAL before it answers, and a checkpoint by fsyncing the files it wrote; in
 * PGlite each of those calls reaches the file layer's `stream_ops.fsync`, which NODEFS does
 * not have, so they did nothing and a committed write could be lost with the machine's
 * power (the OS had not yet written it). This one asks Node for a real fsync of the same
 * file or folder. A failure reaches PostgreSQL as the errno it is, and PostgreSQL treats a
 * failed fsync as it does on any disk (a PANIC rather than trusting data it cannot vouch for).
 */
export function syncThroughToDisk(nodefs: NodefsSync, counters: StoreDurabilityCounters | undefined): void {
  nodefs.stream_ops.fsync = (stream) => {
    const descriptor = stream.nfd;
    if (descriptor === undefined) return 0;
    const started = process.hrtime.bigint();
    nodefs.tryFSOperation(() => fsyncSync(descriptor));
    counters?.countSync(process.hrtime.bigint() - started);
    return 0;
  };
}
