import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { allocatorDefaults } from './allocator-env.ts';

/** `JUNCTION_WORKERS` / `--workers`: a count, or `auto` for one per core. */
export function workerCount(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  if (value === 'auto') return availableParallelism();
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 256) throw new Error(`JUNCTION_WORKERS must be a whole number from 1 to 256, or auto (got "${value}")`);
  return count;
}

/**
 * Refuses what cannot be shared: the embedded PGlite store lives inside one process,
 * so several workers would each open their own copy of the same folder.
 */
export function assertWorkersFit(workers: number, env: NodeJS.ProcessEnv): void {
  if (workers > 1 && !env.DATABASE_URL) {
    throw new Error(`${workers} workers need a shared database: the embedded store (JUNCTION_DATA_DIR) belongs to one process. Set DATABASE_URL to PostgreSQL, or run one worker.`);
  }
}

/**
 * The primary of `--workers N`: forks N servers on the one port (the cluster module
 * hands connections to them), restarts one that dies unexpectedly, and passes
 * SIGTERM/SIGINT on so each drains its requests. Limits stay exact across workers: they
 * are separate processes on one database, as budget leases expect.
 */
export function runPrimary(workers: number, log: (message: string) => void): void {
  let stopping = false;
  const fork = (index: number) => {
    const worker = cluster.fork({ JUNCTION_WORKER_INDEX: String(index), ...allocatorDefaults(process.env) });
    worker.on('exit', (code, signal) => {
      if (stopping) return;
      log(`worker ${index} exited (${signal ?? code}); starting it again`);
      setTimeout(() => fork(index), 1_000).unref();
    });
  };
  for (let index = 1; index <= workers; index += 1) fork(index);
  log(`started ${workers} workers`);
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    let remaining = Object.keys(cluster.workers ?? {}).length;
    if (remaining === 0) process.exit(0);
    cluster.on('exit', () => {
      remaining -= 1;
      if (remaining === 0) process.exit(0);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
