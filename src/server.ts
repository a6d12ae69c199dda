import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { startAdminSocket } from './admin/admin-socket.ts';
import { buildApp } from './app.ts';
import type { EnvConfig } from './config/env-config.ts';
import { issueSetupToken, setupLink } from './console/session-routes.ts';
import { openServices, type Services } from './assembly/services.ts';
import type { Database } from './store/database.ts';

export type RunningServer = { app: FastifyInstance; services: Services; url: string; stop(): Promise<void> };

const FIRST_START_HELP = `
Junction created its default account. Nothing secret was generated or written to disk.
Create your first keys with the CLI (works while the server runs):

  npx junction keys create --kind provisioning --name admin     # manages keys over /v1/keys
  npx junction keys create --kind model --name my-app           # calls models under /v1
  npx junction credits grant --amount 10 --currency USD         # model calls need credit

Each plain key is printed once, at creation. Keep it; only its hash is stored.
Or use the console in a browser (keys, usage, models, agents): see the setup link below.
`;

/** A listening URL a browser can open (0.0.0.0 and :: are not addresses to visit). */
const consoleBaseUrl = (url: string): string => url.replace('//0.0.0.0', '//127.0.0.1').replace('//[::]', '//localhost');

/** Settling time for calls cut at the end of the grace: their abort paths run within milliseconds. */
const CUT_CALLS_SETTLE_MS = 2_000;

/**
 * Stops accepting and drains in-flight requests; a request still open after `graceMs`
 * (a stream that never ends, a client that stopped reading) has its connection cut, so
 * shutdown always ends before an orchestrator's kill. Cut calls bill what they produced,
 * as a client that went away does; the crash journal covers any that cannot settle.
 */
async function closeWithinGrace(app: FastifyInstance, services: Services, graceMs: number): Promise<void> {
  let cut = false;
  const timer = setTimeout(() => {
    cut = true;
    app.log.warn({ graceMs }, 'shutdown grace ended: closing the connections still open');
    app.server.closeAllConnections();
  }, graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
  if (cut) await services.budgets.openCallsSettled(CUT_CALLS_SETTLE_MS);
}

/**
 * Opens the store (or takes the one being opened), applies migrations, builds the app
 * while the services finish starting, listens. `stop()` says "draining" on `/readyz` for
 * JUNCTION_DRAIN_DELAY_MS while still serving, then drains in-flight requests.
 */
export async function startServer(config: EnvConfig, options: { database?: Promise<Database> } = {}): Promise<RunningServer> {
  const { services, started } = await openServices(config, options.database ? { database: options.database } : {});
  // With several workers, the first one speaks for all (one setup link, not N that void each other).
  const speaks = (process.env.JUNCTION_WORKER_INDEX ?? '1') === '1';
  // Until someone signs in to the console, each start prints a fresh one-time setup link. Its
  // token is written while the app is built and the services start (its statements fit between
  // theirs; written after them, it was the embedded store's last 25 ms before ready), and the
  // link printed once listening (it needs the listening URL).
  const setupToken = speaks ? issueSetupToken(services.db, services.now()) : Promise.resolve(undefined);
  setupToken.catch(() => undefined); // awaited once listening; a failed start must not leave it unhandled
  const app = await buildAppWhileStarting(services, started);
  let adminSocket: Server | undefined;
  try {
    const embedded = !config.databaseUrl && !config.dataDir.startsWith('memory://');
    if (embedded) adminSocket = await startAdminSocket(services, config.dataDir);
    const url = await app.listen({ host: config.host, port: config.port });
    if (services.firstStart && speaks) process.stdout.write(FIRST_START_HELP);
    const token = await setupToken;
    if (token) process.stdout.write(`\nOpen the console and create its owner (one-time link, valid 24 h):\n\n  ${setupLink(config.publicUrl ?? consoleBaseUrl(url), token)}\n\n`);
    app.log.info({ engine: services.db.engine, url }, 'junction is ready');
    return {
      app,
      services,
      url,
      async stop() {
        services.drain.begin(services.now());
        if (config.drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.drainDelayMs));
        await closeWithinGrace(app, services, config.shutdownGraceMs);
        await new Promise<void>((done) => (adminSocket ? adminSocket.close(() => done()) : done()));
        await services.close();
      },
    };
  } catch (error) {
    adminSocket?.close();
    await app.close();
    await services.close();
    throw error;
  }
}

/**
 * The HTTP app, built while the services' start runs in the store. If either fails, the
 * other is waited for and undone: an app built is closed, services started are closed
 * (a failed start has already stopped what it began). The start's error comes first: an
 * unreachable database is what the operator has to fix.
 */
async function buildAppWhileStarting(services: Services, started: Promise<void>): Promise<FastifyInstance> {
  const [built, start] = await Promise.allSettled([buildApp(services), started]);
  if (built.status === 'fulfilled' && start.status === 'fulfilled') return built.value;
  if (built.status === 'fulfilled') await built.value.close();
  if (start.status === 'fulfilled') await services.close();
  throw start.status === 'rejected' ? start.reason : (built as PromiseRejectedResult).reason;
}
