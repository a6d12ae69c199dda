import { readEnvConfig } from './config/env-config.ts';
import { startServer } from './server.ts';

/** `npm start`: serve until SIGTERM/SIGINT, then drain in-flight requests and exit. */
const server = await startServer(readEnvConfig());

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  server.app.log.info({ signal }, 'draining in-flight requests');
  server.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      server.app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
