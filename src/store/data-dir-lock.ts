import { closeSync, existsSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The embedded store's folder is held by another live process. */
export class StoreInUseError extends Error {
  override name = 'StoreInUseError';
}

/** The lock file's name, inside the store's folder. */
export const DATA_DIR_LOCK_FILE = 'junction.lock';
/** Folders this process holds (a second open in the same process is refused too). */
const held = new Set<string>();

/**
 * Takes the embedded store's folder for this process: PGlite cannot share its files, and
 * a second process opening them crashes inside the WASM engine (or worse, writes). An
 * exclusive-create lock file holds the owner's pid; a lock whose process is gone (killed,
 * crashed) is stale and taken over, so a `kill -9` never blocks the next start.
 * Returns the release, which removes the file.
 */
export function lockDataDir(dataDir: string): () => void {
  const folder = resolve(dataDir);
  const path = join(folder, DATA_DIR_LOCK_FILE);
  if (held.has(folder)) throw new StoreInUseError(inUseMessage(dataDir, process.pid));
  for (let attempt = 0; ; attempt += 1) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, `${JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() })}\n`);
      } finally {
        closeSync(fd);
      }
      held.add(folder);
      return () => {
        held.delete(folder);
        if (ownerOf(path) === process.pid) unlinkSafely(path);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const owner = ownerOf(path);
      if (owner !== undefined && owner !== process.pid && isRunningNode(owner)) throw new StoreInUseError(inUseMessage(dataDir, owner));
      unlinkSafely(path); // stale: its process is gone
    }
  }
}

const inUseMessage = (dataDir: string, pid: number): string =>
  `another Junction (pid ${pid}) is using ${dataDir}. Stop it first, or leave it serving and run CLI commands against it ` +
  '(they go through its admin socket), or set JUNCTION_DATA_DIR to another folder.';

function ownerOf(path: string): number | undefined {
  try {
    const pid = (JSON.parse(readFileSync(path, 'utf8')) as { pid?: unknown }).pid;
    return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined; // unreadable or half-written: treated as stale
  }
}

/** Alive, and (where /proc tells) a Node process: a pid reused by something else after a crash is no owner. */
function isRunningNode(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const cmdline = `/proc/${pid}/cmdline`;
  if (!existsSync(cmdline)) return true;
  try {
    return readFileSync(cmdline, 'utf8').includes('node');
  } catch {
    return true;
  }
}

function unlinkSafely(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
