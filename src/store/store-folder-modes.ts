import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { privateMode } from './nodefs-private-modes.ts';

/** A store's folder, and any folder made for it: the owner's only. */
export const PRIVATE_FOLDER_MODE = 0o700;

/** Checked at every open (three stats): a store made before files were created owner-only has them all open. */
const SIGNS_OF_AN_OPEN_STORE = ['.', 'PG_VERSION', 'pg_hba.conf'];

const isTooOpen = (path: string): boolean => {
  try {
    const mode = lstatSync(path).mode;
    return privateMode(mode) !== mode;
  } catch {
    return false;
  }
};

/**
 * Takes group and other permissions off every file and folder of a store whose files are
 * too open (one made by an earlier version). The folder itself goes last, so a walk cut
 * short is resumed at the next open. Symbolic links are left alone (their mode means nothing).
 */
export function tightenStoreFolder(folder: string): boolean {
  if (!SIGNS_OF_AN_OPEN_STORE.some((entry) => isTooOpen(join(folder, entry)))) return false;
  tightenTree(folder);
  return true;
}

function tightenTree(path: string): void {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat || stat.isSymbolicLink()) return;
  if (stat.isDirectory()) for (const entry of readdirSync(path)) tightenTree(join(path, entry));
  const mode = stat.mode & 0o7777;
  if (privateMode(mode) !== mode) chmodSync(path, privateMode(mode));
}
