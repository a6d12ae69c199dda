import { randomBytes } from 'node:crypto';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

type WriteOptions = {
  mode?: number;
  /**
   * The new content is on the disk when this resolves (fsync of the file before the rename,
   * then of its folder): for what must outlive a power loss, such as the settlements a
   * shutdown journals. Without it, a crash of the machine soon after could leave the old
   * content, or an empty file where the rename landed before the data.
   */
  durable?: boolean;
};

/** Writes `data` to a new file and, when `durable`, fsyncs it before closing it. */
async function writeNewFile(file: string, data: string | Uint8Array, options: WriteOptions): Promise<void> {
  if (!options.durable) {
    await writeFile(file, data, { mode: options.mode });
    return;
  }
  const handle = await open(file, 'w', options.mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a folder's entries (a file created or renamed in it) durable. */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `data` to `file` through a file beside it and a rename: whoever reads `file` (a
 * process starting meanwhile, a start after a crash) sees the old content or the new, never
 * half of one. The file beside it is named for this write alone, so two writers never share
 * it, and is removed when the write fails.
 */
export async function writeFileAtomically(file: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeNewFile(temporary, data, options);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  // The rename is on the disk once the folder that names the file is.
  if (options.durable) await syncFolder(dirname(file));
}
