import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { toAgentYaml } from '../agents/agent-file-format.ts';
import type { AgentDirectory } from '../agents/agent-directory.ts';
import { listAudit } from '../agents/console-agent-audit.ts';
import type { ReleaseOutcome } from '../agents/console-agent-store.ts';
import { JunctionError } from '../core/errors.ts';
import { parseInput } from '../http/parse-body.ts';
import type { Database } from '../store/database.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import { type AuditEntry, DiffQuerySchema, PublishSchema, type Released, RollbackSchema, StageSchema, type VersionDiff } from './contract/agent-editor.ts';
import { lineDiff } from './line-diff.ts';

export type AgentReleaseDeps = { db: Database; now: () => Date; agents: AgentDirectory };

const IdParamsSchema = z.object({ id: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, "_" and "-", at most 64') });

/**
 * Releases of a console agent: publish a version (a rollback is publishing an older
 * one), stage one for a share of conversations, promote or abort it; every change is
 * on the agent's audit trail, and two versions' YAML can be compared line by line.
 */
export async function agentReleaseRoutes(app: FastifyInstance, deps: AgentReleaseDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const editor = requireConsoleUser(deps.db, deps.now, 'admin');
  const store = deps.agents.consoleAgents;

  const actorOf = (request: FastifyRequest) => {
    const caller = consoleCaller(request);
    return { accountId: caller.accountId, actor: { userId: caller.user.id, email: caller.user.email } };
  };

  /** The release state after a change, or why the change did not happen. */
  const answer = async (accountId: string, id: string, outcome: ReleaseOutcome): Promise<Released> => {
    if (!outcome.ok) throw refusal(id, outcome.reason);
    const state = await store.versions(accountId, id);
    if (!state) throw refusal(id, 'no-agent');
    return { id, published_version: state.published, staged: state.staged };
  };

  app.post('/agents/:id/publish', { preHandler: editor }, async (request) => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const { version } = parseInput(PublishSchema, request.body);
    const { accountId, actor } = actorOf(request);
    return answer(accountId, id, await store.publish(accountId, id, version, actor));
  });

  app.post('/agents/:id/rollback', { preHandler: editor }, async (request) => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const { version } = parseInput(RollbackSchema, request.body);
    const { accountId, actor } = actorOf(request);
    const released = await answer(accountId, id, await store.publish(accountId, id, version, actor, 'rolled_back'));
    return { ...released, version };
  });

  app.post('/agents/:id/stage', { preHandler: editor }, async (request) => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const { version, share } = parseInput(StageSchema, request.body);
    const { accountId, actor } = actorOf(request);
    return answer(accountId, id, await store.stage(accountId, id, version, share, actor));
  });

  app.post('/agents/:id/promote', { preHandler: editor }, async (request) => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const { accountId, actor } = actorOf(request);
    return answer(accountId, id, await store.promote(accountId, id, actor));
  });

  app.post('/agents/:id/abort', { preHandler: editor }, async (request) => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const { accountId, actor } = actorOf(request);
    return answer(accountId, id, await store.abort(accountId, id, actor));
  });

  app.get('/agents/:id/audit', { preHandler: reader }, async (request): Promise<{ data: AuditEntry[] }> => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const accountId = consoleCaller(request).accountId;
    const entries = await listAudit(deps.db, accountId, id);
    if (entries.length === 0 && !(await store.versions(accountId, id))) throw refusal(id, 'no-agent');
    return {
      data: entries.map((entry) => ({
        action: entry.action,
        version: entry.version,
        previous_version: entry.previousVersion,
        share: entry.share,
        actor: entry.actorEmail,
        created_at: entry.createdAt.toISOString(),
      })),
    };
  });

  app.get('/agents/:id/diff', { preHandler: reader }, async (request): Promise<VersionDiff> => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const { from, to } = parseInput(DiffQuerySchema, request.query, 'query');
    const state = await store.versions(consoleCaller(request).accountId, id);
    if (!state) throw refusal(id, 'no-agent');
    const yamlOf = (version: number, param: string) => {
      const found = state.versions.find((entry) => entry.version === version);
      if (!found) throw new JunctionError('not_found', `Agent '${id}' has no version ${version} in this account.`, { param });
      return toAgentYaml(found.definition);
    };
    return { from, to, lines: lineDiff(yamlOf(from, 'from'), yamlOf(to, 'to')) };
  });
}

function refusal(id: string, reason: Exclude<ReleaseOutcome, { ok: true }>['reason']): JunctionError {
  switch (reason) {
    case 'no-agent':
      return new JunctionError('not_found', `No console agent '${id}' in this account.`);
    case 'no-version':
      return new JunctionError('not_found', `Agent '${id}' has no such version in this account.`, { param: 'version' });
    case 'published':
      return new JunctionError('conflict', `That version of '${id}' is the published one already: stage a newer version.`, { param: 'version' });
    case 'not-staged':
      return new JunctionError('conflict', `Agent '${id}' has no staged release to promote or abort.`);
  }
}
