import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Writes `data` to `file` through a file beside it and a rename: whoever reads `file` (a
 * process starting meanwhile, a start after a crash) sees the old content or the new, never
 * half of one. The file beside it is named for this write alone, so two writers never share
 * it, and is removed when the write fails.
 */
export async function writeFileAtomically(file: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, data, options);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
