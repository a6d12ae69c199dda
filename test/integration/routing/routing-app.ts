/**
 * The real app with a config file written for one test, credit granted, and a clock the
 * test moves, so breaker cooldowns and 429 parks pass without waiting.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';

export type RoutingApp = TestApp & {
  /** Moves the app's clock forward. */
  advance(ms: number): void;
  settle(): Promise<void>;
};

export async function startRoutingApp(yaml: string, env: Record<string, string> = {}): Promise<RoutingApp> {
  const folder = mkdtempSync(join(tmpdir(), 'junction-routing-'));
  const configPath = join(folder, 'junction.yaml');
  writeFileSync(configPath, yaml);
  let offsetMs = 0;
  const providerEnv = { JUNCTION_CONFIG: configPath, ...env };
  const app = await startTestApp(providerEnv, {
    env: providerEnv,
    now: () => new Date(Date.now() + offsetMs),
    loadAgents: false,
    retry: { retries: 2, baseDelayMs: 1, maxRetryAfterMs: 50 },
  });
  await runAdminCommand(app.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  return {
    ...app,
    advance(ms) {
      offsetMs += ms;
    },
    settle: () => app.services.settlements.drain(),
    async close() {
      await app.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

export const chatBody = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'hello there' }], ...extra });
