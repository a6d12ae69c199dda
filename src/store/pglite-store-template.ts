import { createHash } from 'node:crypto';
import { existsSync, openAsBlob, readdirSync, rmSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { installedPackageVersion } from '../core/installed-package-version.ts';
import { writeFileAtomically } from '../core/write-file-atomically.ts';
import { PROJECT_ROOT } from '../core/project-root.ts';

/**
 * New embedded stores start from a copy of an empty one. PGlite runs initdb (PostgreSQL's
 * creation of a data folder) in a second WASM engine of its own: 1.7-4 s here, most of a
 * first start and of every in-memory store (each test file opens some), while loading the
 * same folder from a tarball took 0.35-0.6 s. initdb's output depends only on PGlite's
 * version and the initdb options, so the first store made keeps its empty folder as a
 * tarball in node_modules/.cache/junction/pglite (about 40 MB, uncompressed: unpacking a
 * gzip one took 0.2 s more at every use), named by those two, written atomically.
 */
export const DEFAULT_STORE_TEMPLATE_DIR = join(PROJECT_ROOT, 'node_modules', '.cache', 'junction', 'pglite');

/** Written by initdb into every data folder: a folder holding it is a store already. */
const STORE_MARKER = 'PG_VERSION';
/** A tar archive's signature ("ustar") at this offset of its first header. */
const TAR_MAGIC_OFFSET = 257;
const TAR_BLOCK = 512;
/**
 * The top-level entries of a PostgreSQL data folder (the manual's "Database File Layout").
 * Anything else in a store's folder is not PostgreSQL's: Junction's lock file (which, copied
 * into a new store, would overwrite that store's own lock with another process's), its admin
 * socket, or files a person left there. The kept store holds none of them.
 */
const POSTGRES_ENTRY = /^(PG_VERSION|base|global|current_logfiles|pg_[A-Za-z_]+(\.conf)?|postgresql(\.auto)?\.conf|postmaster\.(opts|pid))$/;
/** Part of the template's name: a new format makes templates of the old one unused (older ones could hold a lock file). */
const TEMPLATE_FORMAT = 2;

/** The template's file for this PGlite and these initdb options. */
export function storeTemplateFile(templateDir: string, initdbOptions: readonly string[]): string {
  const key = createHash('sha256')
    .update(JSON.stringify({ format: TEMPLATE_FORMAT, pglite: installedPackageVersion('@electric-sql/pglite'), initdbOptions }))
    .digest('hex')
    .slice(0, 16);
  return join(templateDir, `empty-store-${key}.tar`);
}

/** Whether the folder `dataDir` holds no store yet (undefined: a store in memory, always new). */
export const isNewStore = (dataDir: string | undefined): boolean => dataDir === undefined || !existsSync(join(dataDir, STORE_MARKER));

/** The template, when one was kept and looks like a tar archive; else undefined (then initdb runs). */
export async function readStoreTemplate(file: string): Promise<Blob | undefined> {
  try {
    const handle = await open(file, 'r');
    try {
      const magic = Buffer.alloc(5);
      await handle.read(magic, 0, 5, TAR_MAGIC_OFFSET);
      if (magic.toString('latin1') !== 'ustar') return undefined;
    } finally {
      await handle.close();
    }
    return await openAsBlob(file);
  } catch {
    return undefined;
  }
}

/**
 * Keeps the empty store `db` has just been created with, for the next new store. A
 * checkpoint first, so a store loaded from it starts without replaying initdb's log. A
 * folder that cannot be written means no template: new stores then run initdb.
 */
export async function writeStoreTemplate(db: PGlite, file: string): Promise<void> {
  try {
    await db.exec('CHECKPOINT');
    const archive = await db.dumpDataDir('none');
    await mkdir(join(file, '..'), { recursive: true });
    // Owner-only like the stores made from it (the tar itself still says 0666 for each file).
    await writeFileAtomically(file, postgresEntriesOnly(new Uint8Array(await archive.arrayBuffer())), { mode: 0o600 });
  } catch {
    // Unwritable: the next new store runs initdb too.
  }
}

/**
 * The tar archive `tar` without the entries that are not PostgreSQL's (POSTGRES_ENTRY). A
 * ustar entry is a 512-byte header (name at 0, size in octal at 124, name prefix at 345)
 * followed by its data padded to whole blocks; the archive ends with two zero blocks.
 */
export function postgresEntriesOnly(tar: Uint8Array): Uint8Array {
  const kept: Uint8Array[] = [];
  const text = (from: number, length: number) =>
    Buffer.from(tar.subarray(from, from + length))
      .toString('latin1')
      .replace(/\0.*$/s, '');
  let at = 0;
  while (at + TAR_BLOCK <= tar.length && tar[at] !== 0) {
    const prefix = text(at + 345, 155);
    const path = prefix === '' ? text(at, 100) : `${prefix}/${text(at, 100)}`;
    const size = Number.parseInt(text(at + 124, 12).trim() || '0', 8);
    const end = at + TAR_BLOCK + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
    const topLevel = path.split('/').find((part) => part !== '') ?? '';
    if (POSTGRES_ENTRY.test(topLevel)) kept.push(tar.subarray(at, end));
    at = end;
  }
  kept.push(new Uint8Array(2 * TAR_BLOCK));
  return Buffer.concat(kept);
}

/** Removes a template that failed to load, so the next new store runs initdb and keeps a good one. */
export async function discardStoreTemplate(file: string): Promise<void> {
  await rm(file, { force: true });
}

/**
 * Empties a new store's folder after a load from the template failed part way, keeping
 * `keep` (the folder's lock file): initdb then starts on an empty folder again.
 */
export function emptyNewStoreFolder(dataDir: string, keep: string): void {
  for (const entry of readdirSync(dataDir)) if (entry !== keep) rmSync(join(dataDir, entry), { recursive: true, force: true });
}
