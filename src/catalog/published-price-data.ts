import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { installedPackageVersion } from '../core/installed-package-version.ts';
import { PROJECT_ROOT } from '../core/project-root.ts';

/**
 * The published models of the providers the catalog reads, as @pydantic/genai-prices lists
 * them. The package is one module holding every provider's data as code (800 KB): importing
 * it took 85-103 ms of the server's thread at every start. The providers read here are
 * a small part of it as JSON, read and parsed in a few ms. So the first use after an install loads the
 * package once and keeps those providers' models as a snapshot in
 * node_modules/.cache/junction/genai-prices, named by the package's version (a new version
 * is a new snapshot; a snapshot is only ever written whole, by a rename).
 */
export const DEFAULT_PRICE_SNAPSHOT_DIR = join(PROJECT_ROOT, 'node_modules', '.cache', 'junction', 'genai-prices');

/** The package's provider ids the catalog reads (published-prices.ts maps provider kinds to them). */
export const SNAPSHOT_PROVIDERS = ['openai', 'anthropic', 'google', 'aws', 'cohere', 'mistral'] as const;
export type SnapshotProviderId = (typeof SNAPSHOT_PROVIDERS)[number];

type Snapshot = Record<SnapshotProviderId, unknown[]>;

const PACKAGE = '@pydantic/genai-prices';
/** Part of the snapshot's name: a new layout makes snapshots of the old one unused. */
const SNAPSHOT_FORMAT = 1;

// Not an import: that would put the package into every start again (in the compiled server, in its main chunk).
const loadPackage = createRequire(import.meta.url);
const loaded = new Map<string, Snapshot>();

/** The models the package lists for `providerId` (its own shapes, checked by the caller), from the snapshot in `snapshotDir`. */
export function publishedProviderModels(providerId: SnapshotProviderId, snapshotDir = DEFAULT_PRICE_SNAPSHOT_DIR): unknown[] {
  let snapshot = loaded.get(snapshotDir);
  if (snapshot === undefined) {
    snapshot = readOrMakeSnapshot(snapshotFile(snapshotDir));
    loaded.set(snapshotDir, snapshot);
  }
  return snapshot[providerId];
}

/** The snapshot's file for the installed version of the package. */
export function snapshotFile(snapshotDir: string): string {
  return join(snapshotDir, `providers-${installedPackageVersion(PACKAGE)}-${SNAPSHOT_FORMAT}.json`);
}

function readOrMakeSnapshot(file: string): Snapshot {
  const kept = readSnapshot(file);
  if (kept !== undefined) return kept;
  const { findProvider } = loadPackage(PACKAGE) as typeof import('@pydantic/genai-prices');
  const made = Object.fromEntries(SNAPSHOT_PROVIDERS.map((id) => [id, findProvider({ providerId: id })?.models ?? []])) as Snapshot;
  writeSnapshot(file, made);
  return made;
}

/** The snapshot in `file`, or undefined when there is none or it is not one (then it is made again). */
function readSnapshot(file: string): Snapshot | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const snapshot = parsed as Record<string, unknown>;
    return SNAPSHOT_PROVIDERS.every((id) => Array.isArray(snapshot[id])) ? (snapshot as Snapshot) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Written to a file of its own and renamed over: a reader never sees half a snapshot. The
 * same way as writeFileAtomically, but synchronous, as the catalog that asks is. A folder
 * that cannot be written means no snapshot (the package is then loaded at each start).
 */
function writeSnapshot(file: string, snapshot: Snapshot): void {
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(temporary, JSON.stringify(snapshot));
    renameSync(temporary, file);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Its folder could not be made either: there is nothing to remove.
    }
  }
}
