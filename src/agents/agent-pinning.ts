import { JunctionError } from '../core/errors.ts';
import type { AgentDirectory, OwnedAgent } from './agent-directory.ts';
import type { VersionSelector } from './console-agent-store.ts';

/** `support@3` (or `@v3`), `support@latest`, `support@published`; a file agent also `plain@<content hash>`. */
export type AgentReference = { id: string; selector: string | undefined };

/** Agent ids never hold `@`, so the last one splits the id from the version. */
export function parseAgentReference(model: string): AgentReference {
  const at = model.lastIndexOf('@');
  return at < 0 ? { id: model, selector: undefined } : { id: model.slice(0, at), selector: model.slice(at + 1) };
}

function consoleSelector(text: string): VersionSelector | undefined {
  if (text === 'latest' || text === 'published') return text;
  const number = /^v?([1-9][0-9]{0,8})$/.exec(text)?.[1];
  return number === undefined ? undefined : Number(number);
}

const noVersion = (id: string, selector: string) =>
  new JunctionError('model_not_found', `Agent '${id}' has no version '${selector.slice(0, 64)}'. Use a version number, 'latest' or 'published' (the console's agent page lists the versions).`, {
    param: 'model',
  });

/**
 * The version a pinned reference names, in the caller's account only: another account's
 * agent, or a version that does not exist, is "not found" alike. A pinned version never
 * takes part in a staged release.
 */
export async function requirePinned(directory: AgentDirectory, accountId: string, reference: { id: string; selector: string }): Promise<OwnedAgent> {
  const { id, selector } = reference;
  const current = await directory.find(accountId, id);
  if (current?.source === 'file') {
    // A file has one version on disk: its content hash, which latest and published name too.
    if (selector === 'latest' || selector === 'published' || selector === current.version) return current;
    throw noVersion(id, selector);
  }
  const parsed = consoleSelector(selector);
  const pinned = await directory.consoleAgents.pinned(accountId, id, parsed ?? 'published');
  if (!pinned.exists) throw new JunctionError('model_not_found', `No agent '${id}'. GET /agents/v1/models lists them.`, { param: 'model' });
  if (parsed === undefined || !pinned.agent) throw noVersion(id, selector);
  if ('refused' in pinned.agent) {
    const problems = pinned.agent.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    throw new JunctionError('agent_unavailable', `Agent '${id}' version ${pinned.agent.version} does not run under the console's rules: ${problems}.`, { param: 'model' });
  }
  return { ...pinned.agent, source: 'console' };
}

/**
 * The version a queued response announced (its `agent_version`), for the process that
 * runs it later: a pin or a staged share decided at submission holds. Falls back to
 * the agent as it serves now when that version is gone (an edited file).
 */
export async function findAnnounced(directory: AgentDirectory, accountId: string, id: string, version: string | undefined): Promise<OwnedAgent | undefined> {
  if (version !== undefined) {
    const pinned = await requirePinned(directory, accountId, { id, selector: version }).catch(() => undefined);
    if (pinned) return pinned;
  }
  return directory.find(accountId, id);
}
