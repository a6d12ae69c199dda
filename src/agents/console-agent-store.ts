import type { Database, Queryable } from '../store/database.ts';
import { LOST_NOTIFICATIONS } from '../store/database.ts';
import { describeZodIssues } from '../tools/compile-tool.ts';
import { ConsoleAgentConfigSchema, type AgentFile } from './agent-config-schema.ts';
import type { AgentIssue, LoadedAgent } from './agent-registry.ts';
import { type Actor, recordAudit } from './console-agent-audit.ts';

/** NOTIFY channel: a console agent of `<account>/<id>` changed; every process drops its copy. */
export const AGENT_CHANGES_CHANNEL = 'junction_agent_changes';

export type AgentVersion = { version: number; definition: AgentFile; changeNote: string | null; createdByEmail: string | null; createdAt: Date };

type VersionRow = { version: number; definition: AgentFile; change_note: string | null; created_by_email: string | null; created_at: Date };
const toVersion = (row: VersionRow): AgentVersion => ({
  version: row.version,
  definition: row.definition,
  changeNote: row.change_note,
  createdByEmail: row.created_by_email,
  createdAt: row.created_at,
});

/** A stored version the console schema refuses now (saved before a rule existed, e.g. an MCP command): it never runs. */
export type RefusedConsoleAgent = { refused: true; id: string; version: number; issues: AgentIssue[] };

/**
 * A stored definition as the runtime's LoadedAgent, read again with the console's own
 * (tenant) schema: what was saved under older, wider rules does not run.
 */
export function toLoadedAgent(accountId: string, id: string, version: AgentVersion): LoadedAgent | RefusedConsoleAgent {
  const parsed = ConsoleAgentConfigSchema.safeParse(version.definition);
  if (!parsed.success) return { refused: true, id, version: version.version, issues: describeZodIssues(parsed.error.issues) };
  const config = parsed.data;
  return { id, file: `console:${accountId}/${id}`, config, instructions: config.instructions ?? '', version: `v${version.version}`, updatedAt: version.createdAt };
}

const isRefused = (agent: LoadedAgent | RefusedConsoleAgent): agent is RefusedConsoleAgent => 'refused' in agent;

/** Which version callers get, and the one staged for a share of conversations. */
export type ReleaseState = { published: number; newest: number; staged: { version: number; share: number } | null };

/** A version named by `agent@…`: a number, the newest (drafts included), or the published one. */
export type VersionSelector = number | 'latest' | 'published';

export type ReleaseOutcome = { ok: true; version: number } | { ok: false; reason: 'no-agent' | 'no-version' | 'published' | 'not-staged' };

type HeadRow = { latest_version: number; staged_version: number | null; staged_share: number | null };
type ServingRow = VersionRow & { staged_share: number | null; is_staged: boolean };

const VERSION_COLUMNS = 'v.version, v.definition, v.change_note, v.created_by_email, v.created_at';

/**
 * Agents made in the console: every save is a new immutable version, a draft until it
 * is published (the first version of an agent is published by its save: there is
 * nothing else to serve). The published version serves, a staged one a share of
 * conversations; a rollback publishes an older version. Each process caches what it
 * loaded and drops it when a change is announced (NOTIFY, same transaction as the
 * change), so a release takes effect on the next request in every process.
 */
export class ConsoleAgentStore {
  readonly #db: Database;
  readonly #cache = new Map<string, LoadedAgent | RefusedConsoleAgent | null>();
  #stopListening: (() => Promise<void>) | undefined;

  constructor(db: Database) {
    this.#db = db;
  }

  async start(): Promise<void> {
    this.#stopListening = await this.#db.listen(AGENT_CHANGES_CHANNEL, (payload) => {
      if (payload === LOST_NOTIFICATIONS) this.#cache.clear();
      else this.#cache.delete(payload);
    });
  }

  async stop(): Promise<void> {
    await this.#stopListening?.();
  }

  /** The published version, carrying its staged release when one is in flight. */
  async find(accountId: string, id: string): Promise<LoadedAgent | undefined> {
    const found = await this.#load(accountId, id);
    return found && !isRefused(found) ? found : undefined;
  }

  /** Why the account's stored agent `id` does not run, when it is stored but refused. */
  async refusal(accountId: string, id: string): Promise<RefusedConsoleAgent | undefined> {
    const found = await this.#load(accountId, id);
    return found && isRefused(found) ? found : undefined;
  }

  async #load(accountId: string, id: string): Promise<LoadedAgent | RefusedConsoleAgent | undefined> {
    const cacheKey = `${accountId}/${id}`;
    const cached = this.#cache.get(cacheKey);
    if (cached !== undefined) return cached ?? undefined;
    const result = await this.#db.query<ServingRow>(
      `SELECT ${VERSION_COLUMNS}, a.staged_share, v.version IS NOT DISTINCT FROM a.staged_version AS is_staged
       FROM console_agents a JOIN console_agent_versions v ON v.account_id = a.account_id AND v.agent_id = a.agent_id AND v.version IN (a.latest_version, a.staged_version)
       WHERE a.account_id = $1 AND a.agent_id = $2`,
      [accountId, id],
    );
    const publishedRow = result.rows.find((row) => !row.is_staged);
    const stagedRow = result.rows.find((row) => row.is_staged);
    let agent: LoadedAgent | RefusedConsoleAgent | null = publishedRow ? toLoadedAgent(accountId, id, toVersion(publishedRow)) : null;
    // A staged version today's rules refuse is left out: its share gets the published version.
    const staged = stagedRow ? toLoadedAgent(accountId, id, toVersion(stagedRow)) : undefined;
    if (agent && !isRefused(agent) && staged && !isRefused(staged) && stagedRow?.staged_share) agent = { ...agent, release: { share: stagedRow.staged_share, agent: staged } };
    this.#cache.set(cacheKey, agent);
    return agent ?? undefined;
  }

  /** The version `id@selector` names; `exists` says whether the agent itself does. Versions are read afresh: a deleted agent's numbers come back. */
  async pinned(accountId: string, id: string, selector: VersionSelector): Promise<{ exists: boolean; agent?: LoadedAgent | RefusedConsoleAgent }> {
    let where = 'v.version = a.latest_version';
    if (selector === 'latest') where = 'v.version = (SELECT max(version) FROM console_agent_versions WHERE account_id = a.account_id AND agent_id = a.agent_id)';
    else if (typeof selector === 'number') where = 'v.version = $3';
    const result = await this.#db.query<Omit<VersionRow, 'version'> & { version: number | null }>(
      `SELECT ${VERSION_COLUMNS} FROM console_agents a LEFT JOIN console_agent_versions v ON v.account_id = a.account_id AND v.agent_id = a.agent_id AND ${where}
       WHERE a.account_id = $1 AND a.agent_id = $2`,
      typeof selector === 'number' ? [accountId, id, selector] : [accountId, id],
    );
    const row = result.rows[0];
    if (!row) return { exists: false };
    const { version } = row;
    if (version === null) return { exists: true };
    return { exists: true, agent: toLoadedAgent(accountId, id, toVersion({ ...row, version })) };
  }

  async list(accountId: string): Promise<LoadedAgent[]> {
    const result = await this.#db.query<VersionRow & { agent_id: string }>(
      `SELECT a.agent_id, ${VERSION_COLUMNS}
       FROM console_agents a JOIN console_agent_versions v ON v.account_id = a.account_id AND v.agent_id = a.agent_id AND v.version = a.latest_version
       WHERE a.account_id = $1 ORDER BY a.agent_id`,
      [accountId],
    );
    return result.rows.map((row) => toLoadedAgent(accountId, row.agent_id, toVersion(row))).filter((agent): agent is LoadedAgent => !isRefused(agent));
  }

  async versions(accountId: string, id: string): Promise<(ReleaseState & { versions: AgentVersion[] }) | undefined> {
    const head = await this.#db.query<HeadRow>('SELECT latest_version, staged_version, staged_share FROM console_agents WHERE account_id = $1 AND agent_id = $2', [accountId, id]);
    const state = head.rows[0];
    if (!state) return undefined;
    const rows = await this.#db.query<VersionRow>(
      'SELECT version, definition, change_note, created_by_email, created_at FROM console_agent_versions WHERE account_id = $1 AND agent_id = $2 ORDER BY version DESC',
      [accountId, id],
    );
    const versions = rows.rows.map(toVersion);
    const staged = state.staged_version !== null && state.staged_share !== null ? { version: state.staged_version, share: state.staged_share } : null;
    return { published: state.latest_version, newest: versions[0]?.version ?? state.latest_version, staged, versions };
  }

  /** Saves a new version (creating the agent on its first save): a draft, unless it is the first or `publish` asks. */
  async save(accountId: string, id: string, definition: AgentFile, author: Actor, changeNote: string | null, options: { publish?: boolean } = {}): Promise<{ version: number; published: boolean }> {
    const saved = await this.#db.transaction(async (tx) => {
      await tx.query('INSERT INTO console_agents (account_id, agent_id, latest_version) VALUES ($1, $2, 0) ON CONFLICT (account_id, agent_id) DO NOTHING', [accountId, id]);
      // The agent's row is locked first, so two saves at once number their versions one after the other.
      const head = await tx.query<{ latest_version: number }>('SELECT latest_version FROM console_agents WHERE account_id = $1 AND agent_id = $2 FOR UPDATE', [accountId, id]);
      const previous = head.rows[0]?.latest_version ?? 0;
      const newest = await tx.query<{ newest: number }>('SELECT COALESCE(max(version), 0)::int AS newest FROM console_agent_versions WHERE account_id = $1 AND agent_id = $2', [accountId, id]);
      const next = (newest.rows[0]?.newest ?? 0) + 1;
      await tx.query(`INSERT INTO console_agent_versions (account_id, agent_id, version, definition, change_note, created_by, created_by_email) VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7)`, [
        accountId,
        id,
        next,
        JSON.stringify(definition),
        changeNote,
        author.userId,
        author.email,
      ]);
      const publish = previous === 0 || options.publish === true;
      await recordAudit(tx, accountId, id, author, { action: previous === 0 ? 'created' : 'saved', version: next });
      if (publish) {
        await tx.query('UPDATE console_agents SET latest_version = $3, staged_version = NULL, staged_share = NULL, staged_at = NULL, updated_at = now() WHERE account_id = $1 AND agent_id = $2', [
          accountId,
          id,
          next,
        ]);
        await recordAudit(tx, accountId, id, author, { action: 'published', version: next, previousVersion: previous === 0 ? null : previous });
        await announce(tx, accountId, id);
      } else {
        await tx.query('UPDATE console_agents SET updated_at = now() WHERE account_id = $1 AND agent_id = $2', [accountId, id]);
      }
      return { version: next, published: publish };
    });
    this.#cache.delete(`${accountId}/${id}`);
    return saved;
  }

  /** Makes `version` the one callers get (a rollback when it is older); any staged release ends. */
  async publish(accountId: string, id: string, version: number, actor: Actor, action: 'published' | 'rolled_back' = 'published'): Promise<ReleaseOutcome> {
    return this.#change(accountId, id, async (tx, head) => {
      if (!(await hasVersion(tx, accountId, id, version))) return { ok: false, reason: 'no-version' };
      await tx.query('UPDATE console_agents SET latest_version = $3, staged_version = NULL, staged_share = NULL, staged_at = NULL, updated_at = now() WHERE account_id = $1 AND agent_id = $2', [
        accountId,
        id,
        version,
      ]);
      await recordAudit(tx, accountId, id, actor, { action, version, previousVersion: head.latest_version });
      return { ok: true, version };
    });
  }

  /** Serves `version` to `share` percent of conversations (sticky per conversation), the published version to the rest. */
  async stage(accountId: string, id: string, version: number, share: number, actor: Actor): Promise<ReleaseOutcome> {
    return this.#change(accountId, id, async (tx, head) => {
      if (!(await hasVersion(tx, accountId, id, version))) return { ok: false, reason: 'no-version' };
      if (version === head.latest_version) return { ok: false, reason: 'published' };
      await tx.query('UPDATE console_agents SET staged_version = $3, staged_share = $4, staged_at = now(), updated_at = now() WHERE account_id = $1 AND agent_id = $2', [
        accountId,
        id,
        version,
        share,
      ]);
      await recordAudit(tx, accountId, id, actor, { action: 'staged', version, previousVersion: head.latest_version, share });
      return { ok: true, version };
    });
  }

  /** The staged version serves everyone. */
  async promote(accountId: string, id: string, actor: Actor): Promise<ReleaseOutcome> {
    return this.#change(accountId, id, async (tx, head) => {
      if (head.staged_version === null) return { ok: false, reason: 'not-staged' };
      await tx.query(
        'UPDATE console_agents SET latest_version = staged_version, staged_version = NULL, staged_share = NULL, staged_at = NULL, updated_at = now() WHERE account_id = $1 AND agent_id = $2',
        [accountId, id],
      );
      await recordAudit(tx, accountId, id, actor, { action: 'promoted', version: head.staged_version, previousVersion: head.latest_version, share: head.staged_share });
      return { ok: true, version: head.staged_version };
    });
  }

  /** The staged release ends; the published version serves everyone again. */
  async abort(accountId: string, id: string, actor: Actor): Promise<ReleaseOutcome> {
    return this.#change(accountId, id, async (tx, head) => {
      if (head.staged_version === null) return { ok: false, reason: 'not-staged' };
      await tx.query('UPDATE console_agents SET staged_version = NULL, staged_share = NULL, staged_at = NULL, updated_at = now() WHERE account_id = $1 AND agent_id = $2', [accountId, id]);
      await recordAudit(tx, accountId, id, actor, { action: 'aborted', version: head.staged_version, share: head.staged_share });
      return { ok: true, version: head.latest_version };
    });
  }

  /** A release change on the agent's locked row, announced to every process when it happened. */
  async #change(accountId: string, id: string, apply: (tx: Queryable, head: HeadRow) => Promise<ReleaseOutcome>): Promise<ReleaseOutcome> {
    const outcome = await this.#db.transaction(async (tx): Promise<ReleaseOutcome> => {
      const head = await tx.query<HeadRow>('SELECT latest_version, staged_version, staged_share FROM console_agents WHERE account_id = $1 AND agent_id = $2 FOR UPDATE', [accountId, id]);
      const row = head.rows[0];
      if (!row) return { ok: false, reason: 'no-agent' };
      const result = await apply(tx, row);
      if (result.ok) await announce(tx, accountId, id);
      return result;
    });
    this.#cache.delete(`${accountId}/${id}`);
    return outcome;
  }

  async remove(accountId: string, id: string, actor: Actor): Promise<boolean> {
    const done = await this.#db.transaction(async (tx) => {
      const result = await tx.query('DELETE FROM console_agents WHERE account_id = $1 AND agent_id = $2', [accountId, id]);
      if (result.rowCount > 0) {
        await recordAudit(tx, accountId, id, actor, { action: 'deleted' });
        await announce(tx, accountId, id);
      }
      return result.rowCount > 0;
    });
    this.#cache.delete(`${accountId}/${id}`);
    return done;
  }
}

const hasVersion = async (tx: Queryable, accountId: string, id: string, version: number): Promise<boolean> =>
  (await tx.query('SELECT 1 FROM console_agent_versions WHERE account_id = $1 AND agent_id = $2 AND version = $3', [accountId, id, version])).rows.length > 0;

const announce = (tx: Queryable, accountId: string, id: string) => tx.query('SELECT pg_notify($1, $2)', [AGENT_CHANGES_CHANNEL, `${accountId}/${id}`]);
