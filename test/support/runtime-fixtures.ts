import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
