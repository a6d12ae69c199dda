import type { Database, Queryable } from '../store/database.ts';
import { LOST_NOTIFICATIONS } from '../store/database.ts';
import { describeZodIssues } from '../tools/compile-tool.ts';
import { ConsoleAgentConfigSchema, type AgentFile } from './agent-config-schema.ts';
import type { AgentIssue, LoadedAgent } from './agent-registry.ts';

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

/**
 * Agents made in the console: every save is a new immutable version; the latest one
 * serves (a rollback points "latest" at an older version). Each process caches what it
 * loaded and drops it when a change is announced (NOTIFY, same transaction as the
 * change), so a save takes effect on the next request in every process.
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
    const result = await this.#db.query<VersionRow>(
      `SELECT v.version, v.definition, v.change_note, v.created_by_email, v.created_at
       FROM console_agents a JOIN console_agent_versions v ON v.account_id = a.account_id AND v.agent_id = a.agent_id AND v.version = a.latest_version
       WHERE a.account_id = $1 AND a.agent_id = $2`,
      [accountId, id],
    );
    const row = result.rows[0];
    const agent = row ? toLoadedAgent(accountId, id, toVersion(row)) : null;
    this.#cache.set(cacheKey, agent);
    return agent ?? undefined;
  }

  async list(accountId: string): Promise<LoadedAgent[]> {
    const result = await this.#db.query<VersionRow & { agent_id: string }>(
      `SELECT a.agent_id, v.version, v.definition, v.change_note, v.created_by_email, v.created_at
       FROM console_agents a JOIN console_agent_versions v ON v.account_id = a.account_id AND v.agent_id = a.agent_id AND v.version = a.latest_version
       WHERE a.account_id = $1 ORDER BY a.agent_id`,
      [accountId],
    );
    return result.rows.map((row) => toLoadedAgent(accountId, row.agent_id, toVersion(row))).filter((agent): agent is LoadedAgent => !isRefused(agent));
  }

  async versions(accountId: string, id: string): Promise<{ latest: number; versions: AgentVersion[] } | undefined> {
    const head = await this.#db.query<{ latest_version: number }>('SELECT latest_version FROM console_agents WHERE account_id = $1 AND agent_id = $2', [accountId, id]);
    if (!head.rows[0]) return undefined;
    const rows = await this.#db.query<VersionRow>(
      'SELECT version, definition, change_note, created_by_email, created_at FROM console_agent_versions WHERE account_id = $1 AND agent_id = $2 ORDER BY version DESC',
      [accountId, id],
    );
    return { latest: head.rows[0].latest_version, versions: rows.rows.map(toVersion) };
  }

  /** Saves a new version (creating the agent on its first save) and makes it the one that serves. */
  async save(accountId: string, id: string, definition: AgentFile, author: { userId: string; email: string }, changeNote: string | null): Promise<number> {
    const version = await this.#db.transaction(async (tx) => {
      await tx.query('INSERT INTO console_agents (account_id, agent_id, latest_version) VALUES ($1, $2, 0) ON CONFLICT (account_id, agent_id) DO NOTHING', [accountId, id]);
      // The agent's row is locked first, so two saves at once number their versions one after the other.
      await tx.query('SELECT 1 FROM console_agents WHERE account_id = $1 AND agent_id = $2 FOR UPDATE', [accountId, id]);
      const head = await tx.query<{ latest: number }>('SELECT COALESCE(max(version), 0)::int AS latest FROM console_agent_versions WHERE account_id = $1 AND agent_id = $2', [accountId, id]);
      const next = (head.rows[0]?.latest ?? 0) + 1;
      await tx.query(`INSERT INTO console_agent_versions (account_id, agent_id, version, definition, change_note, created_by, created_by_email) VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7)`, [
        accountId,
        id,
        next,
        JSON.stringify(definition),
        changeNote,
        author.userId,
        author.email,
      ]);
      await tx.query('UPDATE console_agents SET latest_version = $3, updated_at = now() WHERE account_id = $1 AND agent_id = $2', [accountId, id, next]);
      await announce(tx, accountId, id);
      return next;
    });
    this.#cache.delete(`${accountId}/${id}`);
    return version;
  }

  /** Makes an earlier version the one that serves; false when there is no such version. */
  async rollback(accountId: string, id: string, version: number): Promise<boolean> {
    const done = await this.#db.transaction(async (tx) => {
      const result = await tx.query(
        `UPDATE console_agents SET latest_version = $3, updated_at = now() WHERE account_id = $1 AND agent_id = $2
         AND EXISTS (SELECT 1 FROM console_agent_versions WHERE account_id = $1 AND agent_id = $2 AND version = $3)`,
        [accountId, id, version],
      );
      if (result.rowCount > 0) await announce(tx, accountId, id);
      return result.rowCount > 0;
    });
    this.#cache.delete(`${accountId}/${id}`);
    return done;
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    const done = await this.#db.transaction(async (tx) => {
      const result = await tx.query('DELETE FROM console_agents WHERE account_id = $1 AND agent_id = $2', [accountId, id]);
      if (result.rowCount > 0) await announce(tx, accountId, id);
      return result.rowCount > 0;
    });
    this.#cache.delete(`${accountId}/${id}`);
    return done;
  }
}

const announce = (tx: Queryable, accountId: string, id: string) => tx.query('SELECT pg_notify($1, $2)', [AGENT_CHANGES_CHANNEL, `${accountId}/${id}`]);
