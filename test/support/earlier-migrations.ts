import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS_DIR } from '../../src/store/migrate.ts';

/** A folder of the migrations numbered below `number`: a store migrated from it is one from before that migration, to upgrade. */
export function migrationsBefore(number: number): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'junction-migrations-'));
  for (const file of readdirSync(MIGRATIONS_DIR).filter((name) => /^\d{4}_/.test(name) && Number(name.slice(0, 4)) < number)) copyFileSync(join(MIGRATIONS_DIR, file), join(dir, file));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
