import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../src/core/project-root.ts';

/** The installed version of a client package, as its own package.json says. */
export function installedVersion(packageName: string): string {
  const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'node_modules', packageName, 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/**
 * Runs one call of a client library; a failure is rethrown naming the client, its
 * version and the call, so a red test says which library broke on what.
 */
export function clientCalls(packageName: string): <T>(call: string, run: () => Promise<T>) => Promise<T> {
  const client = `${packageName} ${installedVersion(packageName)}`;
  return async (call, run) => {
    try {
      return await run();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new Error(`${client}, ${call}: ${detail}`, { cause: error });
    }
  };
}
