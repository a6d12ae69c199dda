import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from './gateway-harness.ts';

export const RUNTIME_CONFIG = fileURLToPath(new URL('../fixtures/runtime/junction.runtime.yaml', import.meta.url));
const TOOLS = fileURLToPath(new URL('../fixtures/runtime/tools', import.meta.url));

/** Agent files (id → YAML) and the runtime tools in a fresh folder, with the env that points a gateway at them. */
export function runtimeFolders(agents: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), 'junction-runtime-'));
  mkdirSync(join(root, 'agents'));
  mkdirSync(join(root, 'knowledge'));
  cpSync(TOOLS, join(root, 'tools'), { recursive: true });
  for (const [id, yaml] of Object.entries(agents)) writeFileSync(join(root, 'agents', `${id}.yaml`), yaml);
  return {
    root,
    env: { JUNCTION_CONFIG: RUNTIME_CONFIG, JUNCTION_AGENTS_DIR: join(root, 'agents'), JUNCTION_TOOLS_DIR: join(root, 'tools'), JUNCTION_KNOWLEDGE_DIR: join(root, 'knowledge') },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * For a whole test file: a gateway over these agent files, with credit granted and an
 * agent key. The fields are read inside tests (they are set by the file's beforeAll).
 */
export function useRuntimeGateway(agents: Record<string, string>, env: Record<string, string> = {}) {
  const folders = runtimeFolders(agents);
  let gateway: GatewayHarness | undefined;
  let key = '';
  beforeAll(async () => {
    gateway = await startGateway({ ...folders.env, ...env });
    await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
    key = await gateway.key('agent');
  });
  afterAll(async () => {
    await gateway?.close();
    folders.remove();
  });
  return {
    get gateway(): GatewayHarness {
      if (!gateway) throw new Error('the runtime gateway is read before beforeAll ran');
      return gateway;
    },
    get key(): string {
      return key;
    },
    /** The agent key and a JSON body, as every Agents API call of these tests sends them. */
    headers: () => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' }),
  };
}
