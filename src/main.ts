import cluster from 'node:cluster';
import { readStorageEnv } from './config/storage-env.ts';
import { assertWorkersFit, runPrimary, workerCount } from './ops/workers.ts';
import type { Database } from './store/database.ts';
import { openDatabase } from './store/open-database.ts';

/**
 * `npm start`: serve until SIGTERM/SIGINT, then drain in-flight requests and exit.
 * With JUNCTION_WORKERS=N (or `npx junction serve --workers N`), N processes share the port.
 */
const workers = workerCount(process.env.JUNCTION_WORKERS);
assertWorkersFit(workers, process.env);

if (workers > 1 && cluster.isPrimary) {
  runPrimary(workers, (message) => process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), msg: message })}\n`));
} else {
  let database: Promise<Database> | undefined;
  // Inside the async function: a bad variable is a start-up error like the others.
  const started = (async () => {
    // The store starts opening (the pool's first connection, PGlite's thread, file reads
    // and WASM compilation) before any other module loads, zod and the environment's
    // schema included, so its waits overlap with all of them.
    database = openDatabase(readStorageEnv(process.env));
    database.catch(() => undefined); // awaited (and reported) by createServices
    const [{ readEnvConfig }, { startServer }] = await Promise.all([import('./config/env-config.ts'), import('./server.ts')]);
    return startServer(readEnvConfig(), { database });
  })().catch((error: unknown) => exitOnStartupError(error, database));

  // Installed before the start completes: "junction is ready" is logged inside it, and a
  // signal sent on seeing that line must already find these handlers (under load it could
  // arrive first and kill the process undrained). A signal during the start stops the
  // server once it is up, never a store halfway through opening.
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    void started.then((server) => {
      server.app.log.info({ signal }, 'draining in-flight requests');
      server.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          server.app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/**
 * A cause the operator can fix is one line on stderr and exit 1; anything else keeps its
 * stack. A store still opening (the environment was refused after it began) is closed
 * first, so the embedded engine is not stopped halfway through writing its files.
 */
async function exitOnStartupError(error: unknown, database: Promise<Database> | undefined): Promise<never> {
  await database?.then((db) => db.close()).catch(() => undefined);
  const { describeStartupError } = await import('./startup-error.ts');
  const listen = { host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 8080) };
  const line = describeStartupError(error, listen);
  if (line === undefined) throw error;
  process.stderr.write(`junction: ${line}\n`);
  process.exit(1);
}
