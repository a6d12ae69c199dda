import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { describeZodIssues } from '../tools/compile-tool.ts';
import { displayPath, watchFolders, type FolderWatcher } from '../tools/folder-watcher.ts';
import { AgentConfigSchema, AgentReferencesSchema, type AgentConfig, type AgentReferences } from './agent-config-schema.ts';

/**
 * Agents as files: every `agents/<id>.yaml|yml` is one agent. Each file is parsed,
 * validated strictly and cross-checked (model in the catalog, tools in the tool
 * registry, knowledge folders on disk, instructions_file readable); a refused file is
 * reported with every problem found, not just the first. The folders are
 * watched; a broken edit is reported through `onError` and the agent's last good
 * version keeps serving, so a typo never takes an agent down.
 */

export type LoadedAgent = {
  /** The file name without extension. */
  id: string;
  file: string;
  config: AgentConfig;
  /** `instructions`, or the content of `instructions_file`. */
  instructions: string;
  /** Content hash of the YAML and the instructions file; changes on every effective edit. */
  version: string;
  /** The latest modification time of the YAML and its instructions file. */
  updatedAt: Date;
  /** What was left out to load it (fallback models whose provider is not configured). */
  warnings?: AgentIssue[];
  /** A console agent's staged version, serving `share` percent of conversations (release-selection.ts). */
  release?: StagedRelease;
};

export type StagedRelease = { share: number; agent: LoadedAgent };

export type ToolLookup = {
  has(name: string): boolean;
  /** When given, agents are re-checked after tools change. */
  onChange?(listener: () => void): () => void;
};

export type AgentRegistryOptions = {
  agentsDir: string;
  knowledgeDir: string;
  tools: ToolLookup;
  /** The catalog lives elsewhere; it answers for model ids and aliases. */
  isKnownModel(id: string): boolean;
  watch?: boolean;
  debounceMs?: number;
  onError?: (error: AgentConfigError) => void;
  /** An agent loaded without something it names (reported once per change). */
  onWarning?: (file: string, warnings: AgentIssue[]) => void;
};

export type AgentRegistry = {
  /** A default-account file agent (the owner-aware lookup is AgentDirectory's). */
  get(id: string): LoadedAgent | undefined;
  /** Every file agent, of every account. */
  list(): LoadedAgent[];
  /** Cross-checks a config as files are (model, tools, knowledge): console agents are held to the same rules. */
  check(references: AgentReferences): AgentIssue[];
  /** Files whose current content is refused (their last good version, if any, still serves). */
  errors(): AgentConfigError[];
  reload(): Promise<void>;
  close(): void;
};

export type AgentIssue = { path: string; message: string };

/** One refused agent file; every line of the message reads `file: path: problem`. */
export class AgentConfigError extends Error {
  readonly file: string;
  readonly issues: AgentIssue[];
  /** The version still serving, when an earlier edit of this file was good. */
  keptVersion: string | undefined;
  /** The agent id the file would define (its name without extension). */
  readonly agentId: string;
  /** Its `account:` as written; undefined when it names none, null when the file could not be read that far. */
  account: string | undefined | null = null;
  constructor(file: string, issues: AgentIssue[]) {
    super(describeIssues(file, issues));
    this.name = 'AgentConfigError';
    this.file = file;
    this.issues = issues;
    this.agentId = basename(file, extname(file));
  }
}

type FileState = { lastGood: LoadedAgent | undefined; error: AgentConfigError | undefined; warnings: string };

const AGENT_FILE = /^[^.].*\.ya?ml$/;
const AGENT_ID = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;
const KNOWLEDGE_SEARCH_TOOL = 'knowledge_search';

export async function createAgentRegistry(options: AgentRegistryOptions): Promise<AgentRegistry> {
  const agentsDir = resolve(options.agentsDir);
  const knowledgeDir = resolve(options.knowledgeDir);
  const reportError = options.onError ?? ((error: AgentConfigError) => console.error(error.message));
  const reportWarning = options.onWarning ?? ((file: string, warnings: AgentIssue[]) => console.warn(describeIssues(file, warnings)));
  const files = new Map<string, FileState>();
  let agents = new Map<string, LoadedAgent>();

  const reloadNow = async (): Promise<void> => {
    // Subfolders too (agents/acme/support.yaml): two accounts may each have a `support`.
    const names = existsSync(agentsDir) ? (await readdir(agentsDir, { recursive: true })).filter((name) => AGENT_FILE.test(basename(name))).sort() : [];
    const present = new Set(names.map((name) => join(agentsDir, name)));
    for (const file of files.keys()) if (!present.has(file)) files.delete(file);

    const next = new Map<string, LoadedAgent>();
    for (const file of present) {
      const state = files.get(file) ?? { lastGood: undefined, error: undefined, warnings: '' };
      files.set(file, state);
      const id = basename(file, extname(file));
      let issues: AgentIssue[];
      let account: string | undefined | null = null;
      try {
        const result = await loadAgent(file, id, { ...options, agentsDir, knowledgeDir });
        account = 'agent' in result ? result.agent.config.account : result.account;
        if ('agent' in result && next.has(ownedKey(result.agent))) {
          issues = [{ path: '(file)', message: `another file already defines agent "${id}" for ${result.agent.config.account ? `account "${result.agent.config.account}"` : 'the default account'}` }];
        } else if ('agent' in result) {
          state.lastGood = result.agent;
          issues = [];
          const warnings = result.agent.warnings ?? [];
          const warningText = describeIssues(file, warnings);
          if (warnings.length > 0 && warningText !== state.warnings) reportWarning(file, warnings);
          state.warnings = warningText;
        } else {
          issues = result.issues;
        }
      } catch (error) {
        issues = [{ path: '(file)', message: (error as Error).message }];
      }
      if (issues.length === 0) {
        state.error = undefined;
      } else {
        const error = new AgentConfigError(file, issues);
        error.account = account;
        error.keptVersion = state.lastGood?.version;
        if (state.error?.message !== error.message) reportError(error);
        state.error = error;
      }
      if (state.lastGood && !next.has(ownedKey(state.lastGood))) next.set(ownedKey(state.lastGood), state.lastGood);
    }
    agents = next;
  };

  // Reloads run one at a time, whether the watcher, the tools or a caller asked.
  let queue: Promise<void> = Promise.resolve();
  const reload = (): Promise<void> => (queue = queue.then(reloadNow, reloadNow));

  await reload();
  const unsubscribeTools = options.tools.onChange?.(() => void reload());
  const watcher: FolderWatcher | undefined =
    options.watch === false
      ? undefined
      : watchFolders({
          // Recursive for agents so an edit of prompts/*.md reloads; the knowledge folder
          // only for collections appearing or disappearing.
          folders: [
            { path: agentsDir, recursive: true },
            { path: knowledgeDir, recursive: false },
          ],
          debounceMs: options.debounceMs ?? 100,
          onChange: reload,
          onWatchError: (error) => reportError(new AgentConfigError(agentsDir, [{ path: '(watch)', message: error.message }])),
        });

  return {
    get: (id) => agents.get(ownedKey({ id, config: { account: undefined } })),
    list: () => [...agents.values()],
    // Console agents are checked here too: their messages go to a tenant, so they name no server folder.
    check: (config) => checkReferences(config, { ...options, agentsDir, knowledgeDir, forTenant: true }),
    errors: () => [...files.values()].flatMap((state) => (state.error ? [state.error] : [])),
    reload,
    close() {
      watcher?.close();
      unsubscribeTools?.();
    },
  };
}

/** Agent ids are unique per owning account (the `account:` field as written). */
const ownedKey = (agent: { id: string; config: { account: string | undefined } }): string => `${agent.config.account ?? ''}\u0000${agent.id}`;

type LoadContext = Pick<AgentRegistryOptions, 'tools' | 'isKnownModel'> & { agentsDir: string; knowledgeDir: string; forTenant?: boolean };
/** A refused file's `account:` is kept (null when unreadable) so only its owner is told why. */
type LoadResult = { agent: LoadedAgent } | { issues: AgentIssue[]; account: string | undefined | null };

const describeIssues = (file: string, issues: readonly AgentIssue[]): string => issues.map((issue) => `${displayPath(file)}: ${issue.path}: ${issue.message}`).join('\n');

async function loadAgent(file: string, id: string, context: LoadContext): Promise<LoadResult> {
  // Every problem of the file is collected before it is refused: fixing them one reload
  // at a time, each revealing the next, is the slow way to a working agent.
  const issues: AgentIssue[] = [];
  if (!AGENT_ID.test(id)) issues.push({ path: '(file)', message: `"${id}" is not a valid agent id (letters, digits, "_" and "-")` });
  const [text, fileStat] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
  const document = parseDocument(text, { prettyErrors: true });
  if (document.errors.length > 0) {
    // Past a syntax error the document means nothing reliable: its errors are all there is to say.
    for (const error of document.errors) {
      issues.push({
        path: error.linePos ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}` : '(yaml)',
        message: error.message.split('\n')[0] ?? error.code,
      });
    }
    return { issues, account: null };
  }
  const raw: unknown = document.toJS();
  const parsed = AgentConfigSchema.safeParse(raw);
  if (!parsed.success) issues.push(...describeZodIssues(parsed.error.issues));
  const references = parsed.success ? parsed.data : AgentReferencesSchema.parse(raw);
  // A fallback whose provider is not configured here is left out (with a warning), so
  // an agent written for several providers still serves with the ones that are.
  const warnings: AgentIssue[] = [];
  const fallbackModels = references.fallbackModels.filter((model, index): model is string => {
    if (model === undefined || context.isKnownModel(model)) return model !== undefined;
    warnings.push({ path: `fallback_models[${index}]`, message: `unknown model "${model}" (not in the catalog: is its provider configured?); left out of the fallbacks` });
    return false;
  });
  issues.push(...checkReferences({ ...references, fallbackModels }, context));

  let instructions = parsed.success ? (parsed.data.instructions ?? '') : '';
  let updatedAt = fileStat.mtime;
  let instructionsText = '';
  if (references.instructionsFile !== undefined) {
    const instructionsPath = join(context.agentsDir, references.instructionsFile);
    try {
      const [content, instructionsStat] = await Promise.all([readFile(instructionsPath, 'utf8'), stat(instructionsPath)]);
      instructions = content.trim();
      instructionsText = content;
      if (instructionsStat.mtime > updatedAt) updatedAt = instructionsStat.mtime;
      if (instructions === '') issues.push({ path: 'instructions_file', message: `${references.instructionsFile} is empty` });
    } catch {
      issues.push({ path: 'instructions_file', message: `cannot read ${references.instructionsFile} (relative to the agents folder)` });
    }
  }
  if (!parsed.success || issues.length > 0) return { issues, account: declaredAccount(raw) };
  const config = { ...parsed.data, fallbackModels };

  const version = createHash('sha256').update(text).update('\0').update(instructionsText).digest('hex').slice(0, 16);
  return { agent: { id, file, config, instructions, version, updatedAt, ...(warnings.length > 0 && { warnings }) } };
}

/** `account:` of a file the schema refused, when it is readable at all. */
function declaredAccount(raw: unknown): string | undefined | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const account = (raw as { account?: unknown }).account;
  if (account === undefined) return undefined;
  return typeof account === 'string' ? account : null;
}

/** Entries that are `undefined` could not be read (the schema reports them) and are skipped. */
function checkReferences(config: AgentReferences, context: LoadContext): AgentIssue[] {
  const issues: AgentIssue[] = [];
  if (config.model !== undefined && !context.isKnownModel(config.model)) {
    issues.push({ path: 'model', message: `unknown model "${config.model}" (not in the catalog: is its provider configured?)` });
  }
  config.fallbackModels.forEach((model, index) => {
    if (model !== undefined && !context.isKnownModel(model)) issues.push({ path: `fallback_models[${index}]`, message: `unknown model "${model}" (not in the catalog: is its provider configured?)` });
  });
  config.tools.forEach((tool, index) => {
    if (tool === undefined) return;
    if (!context.tools.has(tool)) issues.push({ path: `tools[${index}]`, message: `unknown tool "${tool}"` });
    else if (tool === KNOWLEDGE_SEARCH_TOOL && config.knowledge.length === 0) {
      issues.push({ path: `tools[${index}]`, message: `${KNOWLEDGE_SEARCH_TOOL} needs at least one collection under knowledge` });
    }
  });
  config.knowledge.forEach((collection, index) => {
    if (collection !== undefined && !isDirectory(join(context.knowledgeDir, collection))) {
      const where = context.forTenant ? '' : ` (expected a folder ${displayPath(join(context.knowledgeDir, collection))})`;
      issues.push({ path: `knowledge[${index}]`, message: `no knowledge collection "${collection}"${where}` });
    }
  });
  return issues;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
