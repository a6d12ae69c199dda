import type { FastifyInstance } from 'fastify';
import type { Services } from './assembly/services.ts';
import { databaseOutageOf } from './store/connection-errors.ts';
import { OUTAGE_RETRY_AFTER_SECONDS } from './store/database-outage-answer.ts';
import { pendingMigrations } from './store/migrate.ts';

type Check = { ok: boolean; detail?: string };

/** A check that gives up after `ms`: a database that hangs must not hang the probe. */
async function within(ms: number, work: () => Promise<Check>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Check>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${ms} ms` }), ms);
  });
  try {
    return await Promise.race([work().catch((error: unknown) => ({ ok: false, detail: failureDetail(error) })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A failed check's detail, naming the kind of database outage where it is one (refused or unreachable, or every connection busy). */
function failureDetail(error: unknown): string {
  const outage = databaseOutageOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return outage === undefined ? message : `${outage}: ${message}`;
}

/**
 * `GET /readyz` (no key): ready to serve when the database answers, every migration is
 * applied and the catalog is loaded; otherwise 503 naming the failing part, or 503
 * "draining" once a shutdown began. `/healthz` stays "the process is alive".
 */
export async function readinessRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/readyz', async (_request, reply) => {
    const drainingSince = services.drain.since;
    if (drainingSince) {
      return reply
        .status(503)
        .header('cache-control', 'no-store')
        .send({ status: 'draining', since: drainingSince.toISOString(), detail: 'shutting down: in-flight requests finish, new ones belong to another host' });
    }
    const database = await within(2_000, async () => {
      await services.db.query('SELECT 1');
      return { ok: true };
    });
    const migrations = database.ok
      ? await within(2_000, async () => {
          const pending = await pendingMigrations(services.db);
          return pending.length === 0 ? { ok: true } : { ok: false, detail: `pending: ${pending.join(', ')}` };
        })
      : { ok: false, detail: 'database unreachable' };
    // Loaded at start (a broken config file stops the start); an empty catalog still serves the console and keys.
    const models = services.catalog.models.length;
    const catalog: Check = { ok: true, detail: models > 0 ? `${models} models` : 'no models yet: configure a provider (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or the config file)' };
    const checks = { database, migrations, catalog };
    const failing = Object.entries(checks)
      .filter(([, check]) => !check.ok)
      .map(([name]) => name);
    if (failing.length > 0) reply.header('retry-after', String(OUTAGE_RETRY_AFTER_SECONDS));
    return reply
      .status(failing.length === 0 ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: failing.length === 0 ? 'ready' : 'not_ready', ...(failing.length > 0 && { failing }), checks });
  });
}
