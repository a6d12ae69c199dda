import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileTypeScriptTool } from '../../../src/tools/typescript-imports.ts';
import { withTempDir } from './tool-test-helpers.ts';

/**
 * The compiled server imports a TypeScript tool file as the one ES module esbuild makes of
 * it, from a data: URL. Each module is run here by a plain `node` (no tsx, no vitest), as
 * the compiled server runs it.
 */
const run = promisify(execFile);
const NODE_MODULES = fileURLToPath(new URL('../../../node_modules', import.meta.url));
const DEFINE_TOOL = fileURLToPath(new URL('../../../src/tools/define-tool.ts', import.meta.url));

let project: Awaited<ReturnType<typeof withTempDir>>;
beforeAll(async () => {
  // A project folder of its own, whose node_modules holds zod, with the tools in tools/.
  project = await withTempDir('ts-tools');
  await symlink(NODE_MODULES, join(project.path, 'node_modules'), 'dir');
  await mkdir(join(project.path, 'tools'));
});
afterAll(() => project.remove());

async function toolFile(name: string, source: string): Promise<string> {
  const file = join(project.path, 'tools', name);
  await writeFile(file, source);
  return file;
}

/** Imports the compiled module in a plain node process and prints what `inspect` returns of its default export. */
async function runCompiled(source: string, inspect: string): Promise<unknown> {
  const url = `data:text/javascript;base64,${Buffer.from(source).toString('base64')}`;
  const script = `const tool = (await import(${JSON.stringify(url)})).default; console.log(JSON.stringify(await (${inspect})(tool)));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout);
}

describe('a TypeScript tool file compiled for the compiled server', () => {
  it('bundles its relative imports, imports its packages from its own folder, and keeps its own import.meta', async () => {
    await toolFile('rates.ts', 'export const rate = (zone: "eu" | "us"): number => (zone === "eu" ? 3 : 5);\n');
    const file = await toolFile(
      'quote.ts',
      `import { z } from 'zod';
import { basename } from 'node:path';
import { defineTool } from ${JSON.stringify(DEFINE_TOOL)};
import { rate } from './rates.ts';
export default defineTool({
  name: 'quote',
  description: 'Quotes a parcel',
  parameters: z.object({ kg: z.number(), zone: z.enum(['eu', 'us']) }),
  execute: ({ kg, zone }) => ({ price: kg * rate(zone), file: basename(import.meta.filename), dir: import.meta.dirname, url: import.meta.url }),
});
`,
    );
    const source = await compileTypeScriptTool(file, null);
    // zod stays an import, of the file it resolves to from the tool's folder (one instance per process).
    expect(source).toContain(`from "${pathToFileURL(join(await realpath(join(project.path, 'node_modules')), 'zod')).href}/`);
    expect(source).not.toContain("from './rates.ts'");
    const result = await runCompiled(
      source,
      `async (tool) => ({ name: tool.name, zod: typeof tool.parameters.parse, answer: await tool.execute({ kg: 2, zone: 'us' }), parsed: tool.parameters.safeParse({ kg: 'x', zone: 'eu' }).success })`,
    );
    expect(result).toEqual({
      name: 'quote',
      zod: 'function',
      answer: { price: 10, file: 'quote.ts', dir: join(project.path, 'tools'), url: pathToFileURL(file).href },
      parsed: false,
    });
  });

  it('names the file, line and column of a syntax error', async () => {
    const file = await toolFile('broken.ts', 'export default {\n  name: "broken",\n  execute( => 1,\n};\n');
    await expect(compileTypeScriptTool(file, null)).rejects.toThrow(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3:\\d+: `));
  });

  it('names a package the tool imports that its folder does not have', async () => {
    const file = await toolFile('missing.ts', "import { thing } from 'no-such-package-here';\nexport default { name: 'missing', execute: () => thing };\n");
    await expect(compileTypeScriptTool(file, null)).rejects.toThrow(/no-such-package-here/);
  });
});

type CachedEntry = { output: string; inputs: Array<{ path: string; sha256: string }> };

describe('the compiled-tool cache', () => {
  const toolSource = (label: string) => `import { z } from 'zod';
import { defineTool } from ${JSON.stringify(DEFINE_TOOL)};
import { suffix } from './suffix.ts';
export default defineTool({ name: 'label', description: 'A label', parameters: z.object({}), execute: () => ${JSON.stringify(label)} + suffix });
`;
  const runLabel = (source: string) => runCompiled(source, 'async (tool) => tool.execute({})');

  it('keeps an output across compiles and compiles again when the tool, a file it bundles or a package file it imports changes', async () => {
    const cache = await withTempDir('tool-cache');
    try {
      await toolFile('suffix.ts', "export const suffix = '-1';\n");
      const file = await toolFile('label.ts', toolSource('first'));
      const first = await compileTypeScriptTool(file, cache.path);
      expect(await runLabel(first)).toBe('first-1');
      const [entryName] = await readdir(cache.path);
      expect(entryName).toMatch(/^[0-9a-f]{64}\.json$/);

      // The entry is what a second compile returns: marked here, the mark comes back.
      const entryFile = join(cache.path, entryName as string);
      const entry = JSON.parse(await readFile(entryFile, 'utf8')) as CachedEntry;
      expect(entry.inputs.map((input) => input.path)).toEqual(expect.arrayContaining([file, join(project.path, 'tools', 'suffix.ts')]));
      expect(entry.inputs.some((input) => input.path.includes(`${join('node_modules', 'zod')}`))).toBe(true);
      await writeFile(entryFile, JSON.stringify({ ...entry, output: `${entry.output}\n// from the cache` }));
      expect(await compileTypeScriptTool(file, cache.path)).toContain('// from the cache');

      await toolFile('label.ts', toolSource('second'));
      expect(await runLabel(await compileTypeScriptTool(file, cache.path))).toBe('second-1');
      await toolFile('suffix.ts', "export const suffix = '-2';\n");
      expect(await runLabel(await compileTypeScriptTool(file, cache.path))).toBe('second-2');

      // A package file the output imports, changed (a reinstall): the entry no longer holds.
      const current = JSON.parse(await readFile(entryFile, 'utf8')) as CachedEntry;
      const inputs = current.inputs.map((input) => (input.path.includes('node_modules') ? { ...input, sha256: '0'.repeat(64) } : input));
      await writeFile(entryFile, JSON.stringify({ output: '// stale', inputs }));
      expect(await compileTypeScriptTool(file, cache.path)).not.toContain('// stale');
    } finally {
      await cache.remove();
    }
  });

  it('compiles as before when the cache folder cannot be written', async () => {
    const blocker = await withTempDir('tool-cache-blocked');
    try {
      // A file where the folder should be: every write fails.
      const cacheDir = join(blocker.path, 'not-a-folder');
      await writeFile(cacheDir, '');
      await toolFile('suffix.ts', "export const suffix = '-3';\n");
      const file = await toolFile('label.ts', toolSource('third'));
      expect(await runLabel(await compileTypeScriptTool(file, cacheDir))).toBe('third-3');
      expect(await runLabel(await compileTypeScriptTool(file, cacheDir))).toBe('third-3');
    } finally {
      await blocker.remove();
    }
  });
});
