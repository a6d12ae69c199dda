import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '../core/write-file-atomically.ts';
import { PROJECT_ROOT } from '../core/project-root.ts';

/**
 * esbuild's output for a TypeScript tool file, kept between starts: compiling tools costs
 * the start's main thread and a process of esbuild's, at the moment the embedded database
 * is opening. An entry is used only while
 * every file the output was made from (the tool, the files it bundled, the package files it
 * imports) has the content it had then; anything else compiles again.
 *
 * Where `node_modules/.cache` is, as other build tools keep theirs: removed with the
 * packages, never inside the user's folders. A folder that cannot be written (a read-only
 * image) just means compiling at every start.
 */
export const DEFAULT_TOOL_CACHE_DIR = join(PROJECT_ROOT, 'node_modules', '.cache', 'junction', 'tools');

/** A file the output was made from, by the SHA-256 of its content. */
export type CompiledInput = { path: string; sha256: string };

type CacheEntry = { output: string; inputs: CompiledInput[] };

/** The fingerprint of content as compiled (see CompiledInput). */
export const contentHash = (content: string | Buffer): string => createHash('sha256').update(content).digest('hex');

/** One entry per tool path, compiler and Node version (the output targets the running Node). */
function entryPath(dir: string, file: string, compilerVersion: string): string {
  return join(dir, `${contentHash(`${file}\0${compilerVersion}\0${process.versions.node}`)}.json`);
}

/** The cached output when every input still has the content it was compiled from. */
export async function readCompiledTool(dir: string, file: string, compilerVersion: string): Promise<string | undefined> {
  let entry: CacheEntry;
  try {
    entry = JSON.parse(await readFile(entryPath(dir, file, compilerVersion), 'utf8')) as CacheEntry;
  } catch {
    return undefined;
  }
  if (typeof entry.output !== 'string' || !Array.isArray(entry.inputs) || entry.inputs.length === 0) return undefined;
  for (const input of entry.inputs) {
    const content = await readFile(input.path).catch(() => undefined);
    if (content === undefined || contentHash(content) !== input.sha256) return undefined;
  }
  return entry.output;
}

/** The fingerprint of a file as it is now, for inputs read by someone else (package files). */
export async function fileHash(path: string): Promise<CompiledInput> {
  return { path, sha256: contentHash(await readFile(path)) };
}

/**
 * Keeps `output` for `file`, made from `inputs`: their content hashed as the compiler read
 * it, so a file edited during the compile is not recorded with its new content beside the
 * old output. Best effort: a failed write only costs the next start a compile.
 */
export async function writeCompiledTool(dir: string, file: string, compilerVersion: string, inputs: readonly CompiledInput[], output: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    // A server starting meanwhile reads the old entry or the new one, never half of one.
    await writeFileAtomically(entryPath(dir, file, compilerVersion), JSON.stringify({ output, inputs: [...inputs] } satisfies CacheEntry));
  } catch {
    // Unwritable or vanished: compile next time.
  }
}
