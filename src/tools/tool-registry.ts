import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ToolDefinition as ModelToolDefinition } from '../core/model-types.ts';
import { compileTool, ToolDefinitionError, type DefinitionIssue, type LoadedTool } from './compile-tool.ts';
import { displayPath, watchFolders, type FolderWatcher } from './folder-watcher.ts';
import { importToolModule } from './typescript-imports.ts';

/**
 * Tools by name: the built-ins, then one tool per file in the tools folder. A file
 * may not take a built-in's name: it is refused (and reported) and the built-in
 * stays, so a stray `calculator.ts` cannot silently change what every agent that
 * lists `calculator` runs. The folder is watched; a
 * changed, added or removed file takes effect for the next lookup, and a broken
 * edit is reported through `onError` while the file's last good version keeps
 * serving.
 */

export type ToolRegistryOptions = {
  toolsDir: string;
  /** Built-in tool exports (see src/tools/builtin/builtin-tools.ts). */
  builtins?: readonly unknown[];
  watch?: boolean;
  debounceMs?: number;
  onError?: (error: ToolLoadError) => void;
};

export type ToolRegistry = {
  get(name: string): LoadedTool | undefined;
  has(name: string): boolean;
  list(): LoadedTool[];
  /** Model-facing definitions for the given names, in that order; unknown names are skipped. */
  definitions(names: readonly string[]): ModelToolDefinition[];
  /** Files whose current content is refused (their last good version, if any, still serves). */
  errors(): ToolLoadError[];
  reload(): Promise<void>;
  /** Called after a reload that changed the set of tools or any tool's version. */
  onChange(listener: () => void): () => void;
  close(): void;
};

/** Names the file; `issues` carry the path inside its export. */
export class ToolLoadError extends Error {
  readonly file: string;
  readonly issues: DefinitionIssue[];
  constructor(file: string, issues: DefinitionIssue[]) {
    super(issues.map((issue) => `${displayPath(file)}: ${issue.path}: ${issue.message}`).join('\n'));
    this.name = 'ToolLoadError';
    this.file = file;
    this.issues = issues;
  }
}

type FileState = { lastGood: LoadedTool | undefined; error: ToolLoadError | undefined };

/**
 * A module's default export. A TypeScript file outside an ESM package (no "type": "module"
 * above it) is loaded as CommonJS by tsx (the server run from source), as is a compiled
 * CommonJS `.js` file, so its `export default` arrives as `module.exports.default`, marked
 * `__esModule`.
 */
function defaultExport(module: unknown): unknown {
  const outer = typeof module === 'object' && module !== null && 'default' in module ? module.default : undefined;
  return typeof outer === 'object' && outer !== null && '__esModule' in outer && 'default' in outer ? outer.default : outer;
}

const TOOL_FILE = /^[^._].*\.(?:ts|mts|js|mjs)$/;
const NOT_A_TOOL_FILE = /\.(?:d|test|spec)\.[cm]?[jt]s$/;

export async function createToolRegistry(options: ToolRegistryOptions): Promise<ToolRegistry> {
  const toolsDir = resolve(options.toolsDir);
  const reportError = options.onError ?? ((error: ToolLoadError) => console.error(error.message));
  // A broken built-in is a programming error: fail start-up loudly.
  const builtins = (options.builtins ?? []).map((exported) => compileTool(exported, 'builtin', 'builtin'));
  const builtinNames = new Set(builtins.map((tool) => tool.name));
  const files = new Map<string, FileState>();
  const listeners = new Set<() => void>();
  let tools = new Map<string, LoadedTool>();
  let nameErrors: ToolLoadError[] = [];

  const loadFile = async (file: string, state: FileState): Promise<void> => {
    try {
      const source = await readFile(file);
      const version = createHash('sha256').update(source).digest('hex').slice(0, 16);
      if (state.lastGood?.version === version) {
        state.error = undefined;
        return;
      }
      // The version busts the ESM cache so an edit is imported afresh. Old module
      // instances stay in memory; edits are rare enough for that not to matter.
      const module = await importToolModule(file, version);
      const exported = defaultExport(module);
      if (exported === undefined) throw new ToolDefinitionError([{ path: 'default', message: 'the file has no default export' }]);
      state.lastGood = compileTool(exported, file, version);
      state.error = undefined;
    } catch (error) {
      const issues = error instanceof ToolDefinitionError ? error.issues : [{ path: '(file)', message: (error as Error).message ?? String(error) }];
      const loadError = new ToolLoadError(file, issues);
      if (state.error?.message !== loadError.message) reportError(loadError);
      state.error = loadError;
    }
  };

  const reloadNow = async (): Promise<void> => {
    const names = existsSync(toolsDir) ? (await readdir(toolsDir)).filter((name) => TOOL_FILE.test(name) && !NOT_A_TOOL_FILE.test(name)) : [];
    const present = new Set(names.sort().map((name) => join(toolsDir, name)));
    for (const file of files.keys()) if (!present.has(file)) files.delete(file);
    for (const file of present) {
      const state = files.get(file) ?? { lastGood: undefined, error: undefined };
      files.set(file, state);
      await loadFile(file, state);
    }

    const next = new Map(builtins.map((tool) => [tool.name, tool]));
    const owners = new Map<string, string>();
    const clashes: ToolLoadError[] = [];
    for (const [file, state] of files) {
      const tool = state.lastGood;
      if (!tool) continue;
      if (builtinNames.has(tool.name)) {
        clashes.push(
          new ToolLoadError(file, [
            { path: 'name', message: `"${tool.name}" is the name of a built-in tool: this file is not loaded and the built-in ${tool.name} stays (give the tool another name)` },
          ]),
        );
        continue;
      }
      const owner = owners.get(tool.name);
      if (owner) {
        clashes.push(new ToolLoadError(file, [{ path: 'name', message: `duplicate tool name "${tool.name}" (also in ${displayPath(owner)})` }]));
        continue;
      }
      owners.set(tool.name, file);
      next.set(tool.name, tool);
    }
    // Reported once, when a clash appears, not again on every reload while it lasts.
    for (const error of clashes) if (!nameErrors.some((known) => known.message === error.message)) reportError(error);
    nameErrors = clashes;

    const changed = fingerprint(next) !== fingerprint(tools);
    tools = next;
    if (changed) for (const listener of listeners) listener();
  };

  // Reloads run one at a time, whether the watcher or a caller asked for them.
  let queue: Promise<void> = Promise.resolve();
  const reload = (): Promise<void> => (queue = queue.then(reloadNow, reloadNow));

  await reload();
  const watcher: FolderWatcher | undefined =
    options.watch === false
      ? undefined
      : watchFolders({
          folders: [{ path: toolsDir, recursive: false }],
          debounceMs: options.debounceMs ?? 100,
          onChange: reload,
          onWatchError: (error) => reportError(new ToolLoadError(toolsDir, [{ path: '(watch)', message: error.message }])),
        });

  return {
    get: (name) => tools.get(name),
    has: (name) => tools.has(name),
    list: () => [...tools.values()],
    definitions: (names) =>
      names.flatMap((name) => {
        const tool = tools.get(name);
        return tool ? [{ name: tool.name, description: tool.description, parameters: tool.parameters }] : [];
      }),
    errors: () => [...[...files.values()].flatMap((state) => (state.error ? [state.error] : [])), ...nameErrors],
    reload,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => watcher?.close(),
  };
}

function fingerprint(tools: Map<string, LoadedTool>): string {
  return [...tools.values()]
    .map((tool) => `${tool.name}@${tool.source}@${tool.version}`)
    .sort()
    .join('\n');
}
