import { type Account, ensureDefaultAccount } from './accounts/account-repository.ts';
import type { EnvConfig } from './config/env-config.ts';
import { KeyAuthenticator } from './keys/key-authenticator.ts';
import { KeyChangeSync } from './keys/key-change-sync.ts';
import { KeyHasher } from './keys/key-hash.ts';
import type { Database } from './store/database.ts';
import { migrate } from './store/migrate.ts';
import { openDatabase } from './store/open-database.ts';
import { ProcessRegistration } from './store/process-registry.ts';

/** Everything a running Junction holds: opened once, shared by the HTTP app and the CLI. */
export type Services = {
  config: EnvConfig;
  db: Database;
  hasher: KeyHasher;
  authenticator: KeyAuthenticator;
  keyChanges: KeyChangeSync;
  /** This process's row in the registry of live processes (leases, change acknowledgements). */
  registration: ProcessRegistration | undefined;
  defaultAccount: Account;
  /** True when this start created the default account (a brand-new store). */
  firstStart: boolean;
  now: () => Date;
  close(): Promise<void>;
};

export type ServiceOptions = {
  now?: () => Date;
  database?: Database;
  /** False for short-lived tools (the CLI): they serve no requests and hold no leases. */
  registerProcess?: boolean;
};

export async function createServices(config: EnvConfig, options: ServiceOptions = {}): Promise<Services> {
  const db = options.database ?? (await openDatabase(config));
  const now = options.now ?? (() => new Date());
  try {
    await migrate(db);
    const { account, created } = await ensureDefaultAccount(db);
    const hasher = new KeyHasher(config.keySecret);
    const authenticator = new KeyAuthenticator(db, hasher, now);
    const registration = options.registerProcess === false ? undefined : new ProcessRegistration(db);
    await registration?.start();
    const keyChanges = new KeyChangeSync(db, registration, (lookupId) => authenticator.forget(lookupId));
    await keyChanges.start();
    return {
      config,
      db,
      hasher,
      authenticator,
      keyChanges,
      registration,
      defaultAccount: account,
      firstStart: created,
      now,
      async close() {
        await keyChanges.stop();
        await registration?.stop();
        await db.close();
      },
    };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
