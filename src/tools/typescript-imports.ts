import { isBuiltin } from 'node:module';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

/**
 * Imports a tool file, which may be TypeScript. Run from source, the server already
 * imports `.ts` through tsx (or vitest). The compiled server (`build/`) compiles a
 * TypeScript tool with esbuild (tsx's own compiler, a dependency) into one ES module and
 * imports it from a data: URL, so nothing is written beside the tool:
 * - its relative imports are bundled in, so a helper `.ts` beside it works too;
 * - each package it imports stays an import, of the exact file it resolves to from the
 *   tool's folder, so the tool shares `zod` (or any package) with whatever else loads it;
 * - `import.meta.url`, `.dirname` and `.filename` are those of the tool file.
 * Registering tsx's loader hooks instead cost about 0.4 s of start-up on a 2-core machine
 * and sent every later import of the process through the hooks' thread.
 */
export async function importToolModule(file: string, version: string): Promise<unknown> {
  if (!/\.[cm]?ts$/.test(file) || import.meta.url.endsWith('.ts')) return import(`${pathToFileURL(file).href}?v=${version}`);
  const source = await compileTypeScriptTool(file);
  return import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`);
}

/** Builds in flight: esbuild's service process is stopped when none is (it restarts in about 20 ms). */
let compiling = 0;

/** The tool file as one ES module, importable from a data: URL (exported for its test). */
export async function compileTypeScriptTool(file: string): Promise<string> {
  const esbuild = await import('esbuild');
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
      logLevel: 'silent',
      define: {
        'import.meta.url': JSON.stringify(pathToFileURL(file).href),
        'import.meta.dirname': JSON.stringify(dirname(file)),
        'import.meta.filename': JSON.stringify(file),
      },
      plugins: [packagesAsResolvedFiles],
    });
    const output = result.outputFiles[0];
    if (!output) throw new Error('esbuild produced no output');
    return output.text;
  } catch (error) {
    throw new Error(describeBuildFailure(error, dirname(file)));
  } finally {
    compiling -= 1;
    if (compiling === 0) await esbuild.stop();
  }
}

type BuildMessage = { text: string; location: { file: string; line: number; column: number } | null };

/** Each of esbuild's errors with the file (esbuild names it from `workingDir`), line and column it points at. */
function describeBuildFailure(error: unknown, workingDir: string): string {
  const errors = (error as { errors?: BuildMessage[] }).errors ?? [];
  if (errors.length === 0) return (error as Error).message;
  return errors.map(({ text, location }) => (location ? `${resolve(workingDir, location.file)}:${location.line}:${location.column}: ${text}` : text)).join('; ');
}

/** Package imports become imports of the files they resolve to (a data: module resolves no bare names). */
const packagesAsResolvedFiles: Plugin = {
  name: 'packages-as-resolved-files',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (isBuiltin(args.path)) return { path: args.path, external: true };
      // Set on the lookup below, so that lookup reaches esbuild's own resolver instead of this hook.
      if (args.pluginData === RESOLVING) return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: RESOLVING });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: pathToFileURL(resolved.path).href, external: true };
    });
  },
};

const RESOLVING = Symbol('resolving a package import');
