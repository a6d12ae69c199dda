import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './project-root.ts';

const versions = new Map<string, string>();

/**
 * The version of package `name` as installed in the project's own node_modules, read once.
 * From its package.json on disk: not every package exports that file.
 */
export function installedPackageVersion(name: string): string {
  let version = versions.get(name);
  if (version === undefined) {
    version = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')) as { version: string }).version;
    versions.set(name, version);
  }
  return version;
}
