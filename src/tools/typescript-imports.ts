import { readFile } from 'node:fs/promises';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { type CompiledInput, contentHash, DEFAULT_TOOL_CACHE_DIR, fileHash, readCompiledTool, writeCompiledTool } from './compiled-tool-cache.ts';

/**
 * Imports a tool file, which may be TypeScript. Run from source, the server already
 * imports `.ts` through tsx (or vitest). The compiled server (`build/`) compiles a
 * TypeScript tool with esbuild (tsx's own compiler, a dependency) into one ES module and
 * imports it from a data: URL, so nothing is written beside the tool:
 * - its relative imports are bundled in, so a helper `.ts` beside it works too;
 * - each package it imports stays an import, of the exact file it resolves to from the
 *   tool's folder, so the tool shares `zod` (or any package) with whatever else loads it;
 * - `import.meta.url`, `.dirname` and `.filename` are those of the tool file.
 * Registering tsx's loader hooks instead would slow every start and send every later
 * import of the process through the hooks' thread.
 */
export async function importToolModule(file: string, version: string): Promise<unknown> {
  if (!/\.[cm]?ts$/.test(file) || import.meta.url.endsWith('.ts')) return import(`${pathToFileURL(file).href}?v=${version}`);
  const source = await compileTypeScriptTool(file);
  return import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`);
}

/** Builds in flight: esbuild's service process is stopped when none is (it restarts in about 20 ms). */
let compiling = 0;

/** esbuild's version, from its package.json: importing esbuild only to ask would cost a start what the cache saves. */
const compilerVersion = (): string => (createRequire(import.meta.url)('esbuild/package.json') as { version: string }).version;

/**
 * The tool file as one ES module, importable from a data: URL (exported for its test).
 * Kept in `cacheDir` between starts (compiled-tool-cache.ts); null compiles every time.
 */
export async function compileTypeScriptTool(file: string, cacheDir: string | null = DEFAULT_TOOL_CACHE_DIR): Promise<string> {
  const version = compilerVersion();
  const cached = cacheDir === null ? undefined : await readCompiledTool(cacheDir, file, version);
  if (cached !== undefined) return cached;
  const esbuild = await import('esbuild');
  const inputs = new CompileInputs();
  compiling += 1;
  try {
    const result = await esbuild.build({
      entryPoints: [file],
      absWorkingDir: dirname(file),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node}`,
      write: false,
      metafile: true,
      logLevel: 'silent',
      define: {
        'import.meta.url': JSON.stringify(pathToFileURL(file).href),
        'import.meta.dirname': JSON.stringify(dirname(file)),
        'import.meta.filename': JSON.stringify(file),
      },
      plugins: [packagesAsResolvedFiles(inputs), sourcesAsRead(inputs)],
    });
    const output = result.outputFiles[0];
    if (!output) throw new Error('esbuild produced no output');
    const bundled = Object.keys(result.metafile.inputs).map((path) => resolve(dirname(file), path));
    // Only an output whose every input is fingerprinted is kept (a file some other loader read is not).
    if (cacheDir !== null && bundled.every((path) => inputs.hasSource(path))) {
      await writeCompiledTool(cacheDir, file, version, await inputs.fingerprints(), output.text);
    }
    return output.text;
  } catch (error) {
    throw new Error(describeBuildFailure(error, dirname(file)));
  } finally {
    compiling -= 1;
    if (compiling === 0) await esbuild.stop();
  }
}

/** What one compile read: source files with the hash of the exact text compiled, and the package files it imports. */
class CompileInputs {
  readonly #sources = new Map<string, string>();
  readonly #packages = new Set<string>();

  addSource(path: string, text: string): void {
    this.#sources.set(path, contentHash(text));
  }

  addPackageFile(path: string): void {
    this.#packages.add(path);
  }

  hasSource(path: string): boolean {
    return this.#sources.has(path);
  }

  async fingerprints(): Promise<CompiledInput[]> {
    const sources = [...this.#sources].map(([path, sha256]) => ({ path, sha256 }));
    return [...sources, ...(await Promise.all([...this.#packages].map(fileHash)))];
  }
}

const LOADERS = { '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx', '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.jsx': 'jsx' } as const;

/** Reads the tool's source files for esbuild, so the cache records the text that was compiled, not the file as it is later. */
const sourcesAsRead = (inputs: CompileInputs): Plugin => ({
  name: 'sources-as-read',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/, namespace: 'file' }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      inputs.addSource(args.path, text);
      return { contents: text, loader: LOADERS[extname(args.path) as keyof typeof LOADERS] };
    });
  },
});

type BuildMessage = { text: string; location: { file: string; line: number; column: number } | null };

/** Each of esbuild's errors with the file (esbuild names it from `workingDir`), line and column it points at. */
function describeBuildFailure(error: unknown, workingDir: string): string {
  const errors = (error as { errors?: BuildMessage[] }).errors ?? [];
  if (errors.length === 0) return (error as Error).message;
  return errors.map(({ text, location }) => (location ? `${resolve(workingDir, location.file)}:${location.line}:${location.column}: ${text}` : text)).join('; ');
}

/** Package imports become imports of the files they resolve to (a data: module resolves no bare names). */
const packagesAsResolvedFiles = (inputs: CompileInputs): Plugin => ({
  name: 'packages-as-resolved-files',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (isBuiltin(args.path)) return { path: args.path, external: true };
      // Set on the lookup below, so that lookup reaches esbuild's own resolver instead of this hook.
      if (args.pluginData === RESOLVING) return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: RESOLVING });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      inputs.addPackageFile(resolved.path);
      return { path: pathToFileURL(resolved.path).href, external: true };
    });
  },
});

const RESOLVING = Symbol('resolving a package import');
