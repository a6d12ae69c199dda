import { closeSync, fsyncSync, openSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** fsyncs one file or folder by path. */
function syncPath(path: string): void {
  const descriptor = openSync(path, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

function syncTree(folder: string): number {
  let synced = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) synced += syncTree(path);
    else if (entry.isFile()) {
      syncPath(path);
      synced += 1;
    }
  }
  // A folder after its contents: its entries name files already on the disk.
  syncPath(folder);
  return synced + 1;
}

/**
 * Puts every file under `folder`, every folder's entries and the folder's own name in its
 * parent on the disk, and answers how many files and folders it synced. For a store made
 * by writing its files outside PostgreSQL (a template unpacked, initdb), whose later
 * checkpoints fsync only the files they write themselves.
 */
export function syncFolderTree(folder: string): number {
  const synced = syncTree(folder);
  syncPath(dirname(folder));
  return synced;
}
