import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { type EnvConfig, readEnvConfig } from '../../src/config/env-config.ts';
import { createKey } from '../../src/keys/key-service.ts';
import type { KeyKind } from '../../src/keys/key-kind.ts';
import type { KeySettings } from '../../src/keys/key-record.ts';
import { createServices, type ServiceOptions, type Services } from '../../src/assembly/services.ts';
import { freshStorage } from './test-database.ts';

export type TestApp = {
  app: FastifyInstance;
  services: Services;
  config: EnvConfig;
  /** Creates a key directly in the store (the CLI's path) and returns its plain text. */
  key(kind: KeyKind, settings?: Partial<KeySettings>, accountId?: string): Promise<string>;
  close(): Promise<void>;
};

/** The real app on a fresh database of the engine under test; nothing is mocked. */
export async function startTestApp(env: Record<string, string> = {}, options: ServiceOptions = {}): Promise<TestApp> {
  const storage = await freshStorage();
  const config = readEnvConfig({
    LOG_LEVEL: 'silent',
    JUNCTION_DATA_DIR: storage.dataDir,
    ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : {}),
    ...env,
  });
  const services = await createServices(config, options);
  const app = await buildApp(services);
  await app.ready();
  return {
    app,
    services,
    config,
    async key(kind, settings = {}, accountId = services.defaultAccount.id) {
      const created = await createKey(services.db, services.hasher, {
        accountId,
        kind,
        settings: { name: `${kind} key`, ...settings },
      });
      return created.plainKey;
    },
    async close() {
      await app.close();
      await services.close();
      await storage.drop();
    },
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
