import type { AccountNames } from '../accounts/account-names.ts';
import { JunctionError } from '../core/errors.ts';
import { displayPath } from '../tools/folder-watcher.ts';
import { parseAgentReference, requirePinned } from './agent-pinning.ts';
import type { AgentConfigError, AgentRegistry, LoadedAgent } from './agent-registry.ts';
import type { ConsoleAgentStore } from './console-agent-store.ts';

export type AgentSource = 'file' | 'console';
export type OwnedAgent = LoadedAgent & { source: AgentSource };

/**
 * The agents an account owns: file agents whose `account:` names it (files without
 * one belong to the default account) and the agents made in its console. One account
 * never sees another's; an id is unique within an account (a console agent cannot
 * take the id of one of the account's file agents).
 */
export class AgentDirectory {
  readonly #files: AgentRegistry;
  readonly #console: ConsoleAgentStore;
  readonly #accounts: AccountNames;
  /** Read when needed: the services are built before the store has told them which account is the default. */
  readonly #defaultAccountId: () => string;

  constructor(files: AgentRegistry, consoleAgents: ConsoleAgentStore, accounts: AccountNames, defaultAccountId: () => string) {
    this.#files = files;
    this.#console = consoleAgents;
    this.#accounts = accounts;
    this.#defaultAccountId = defaultAccountId;
  }

  get files(): AgentRegistry {
    return this.#files;
  }

  get consoleAgents(): ConsoleAgentStore {
    return this.#console;
  }

  async ownerOf(agent: LoadedAgent): Promise<string | undefined> {
    const reference = agent.config.account;
    return reference === undefined ? this.#defaultAccountId() : this.#accounts.resolve(reference);
  }

  async fileAgents(accountId: string): Promise<LoadedAgent[]> {
    const owned: LoadedAgent[] = [];
    for (const agent of this.#files.list()) if ((await this.ownerOf(agent)) === accountId) owned.push(agent);
    return owned;
  }

  async find(accountId: string, id: string): Promise<OwnedAgent | undefined> {
    for (const agent of this.#files.list()) {
      if (agent.id === id && (await this.ownerOf(agent)) === accountId) return { ...agent, source: 'file' };
    }
    const made = await this.#console.find(accountId, id);
    return made ? { ...made, source: 'console' } : undefined;
  }

  /**
   * The agent, or why not: an agent whose file exists but was refused (and has no
   * earlier good version serving) answers 503 naming the file and its problems, to the
   * account that owns it only; anything else is "no such agent". `id@version` pins a version (agent-pinning.ts).
   */
  async require(accountId: string, model: string): Promise<OwnedAgent> {
    const { id, selector } = parseAgentReference(model);
    if (selector !== undefined) return requirePinned(this, accountId, { id, selector });
    const agent = await this.find(accountId, id);
    if (agent) return agent;
    const refused = await this.#console.refusal(accountId, id);
    if (refused) {
      const problems = refused.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
      throw new JunctionError('agent_unavailable', `Agent '${id}' (console version ${refused.version}) does not run under the console's rules: ${problems}. Save a corrected version in the console.`, {
        param: 'model',
      });
    }
    const failure = await this.#loadFailure(accountId, id);
    if (failure) {
      const problems = failure.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
      throw new JunctionError(
        'agent_unavailable',
        `Agent '${id}' (${displayPath(failure.file)}) could not be loaded: ${problems}. Fix the file (it reloads when saved); npx junction doctor lists every problem.`,
        { param: 'model' },
      );
    }
    throw new JunctionError('model_not_found', `No agent '${id}'. GET /agents/v1/models lists them.`, { param: 'model' });
  }

  async #loadFailure(accountId: string, id: string): Promise<AgentConfigError | undefined> {
    for (const error of this.#files.errors()) {
      if (error.agentId !== id || error.keptVersion !== undefined) continue;
      // A file unreadable up to its `account:` is told to the default account (the operator's) only.
      const owner = typeof error.account === 'string' ? await this.#accounts.resolve(error.account) : this.#defaultAccountId();
      if (owner === accountId) return error;
    }
    return undefined;
  }

  async list(accountId: string): Promise<OwnedAgent[]> {
    const files = (await this.fileAgents(accountId)).map((agent) => ({ ...agent, source: 'file' as const }));
    const taken = new Set(files.map((agent) => agent.id));
    const made = (await this.#console.list(accountId)).filter((agent) => !taken.has(agent.id)).map((agent) => ({ ...agent, source: 'console' as const }));
    return [...files, ...made].sort((a, b) => a.id.localeCompare(b.id));
  }
}
