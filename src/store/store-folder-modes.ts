import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { privateMode } from './nodefs-private-modes.ts';

/** A store's folder, and any folder made for it: the owner's only. */
export const PRIVATE_FOLDER_MODE = 0o700;

/** Checked at every open (three stats): a store made before files were created owner-only has them all open. */
const SIGNS_OF_AN_OPEN_STORE = ['.', 'PG_VERSION', 'pg_hba.conf'];

const isTooOpen = (path: string): boolean => {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return stat !== undefined && !stat.isSymbolicLink() && privateMode(stat.mode) !== stat.mode;
};

/**
 * Takes group and other permissions off every file and folder of a store whose files are
 * too open (one made by an earlier version). The folder itself goes last, so a walk cut
 * short is resumed at the next open. Symbolic links are left alone (their mode means nothing),
 * and so is an entry this user may not chmod (another owner's): the store opened before.
 */
export function tightenStoreFolder(folder: string): void {
  if (SIGNS_OF_AN_OPEN_STORE.some((entry) => isTooOpen(join(folder, entry)))) tightenTree(folder);
}

function tightenTree(path: string): void {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat || stat.isSymbolicLink()) return;
  if (stat.isDirectory()) for (const entry of readdirSync(path)) tightenTree(join(path, entry));
  const mode = stat.mode & 0o7777;
  if (privateMode(mode) === mode) return;
  try {
    chmodSync(path, privateMode(mode));
  } catch {
    // Not ours to change: left as it is rather than refusing a store that opens.
  }
}
