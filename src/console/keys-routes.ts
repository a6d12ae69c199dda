import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { JunctionError } from '../core/errors.ts';
import { CreateKeySchema, KeyInputConflict, toKeySettings, UpdateKeySchema } from '../gateway/keys/key-input-schema.ts';
import { toKeyObject } from '../gateway/keys/key-view.ts';
import { parseInput } from '../http/parse-body.ts';
import type { KeyChangeSync } from '../keys/key-change-sync.ts';
import type { KeyKind } from '../keys/key-format.ts';
import type { KeyHasher } from '../keys/key-hash.ts';
import type { ApiKeyRecord } from '../keys/key-record.ts';
import { deleteKey, listKeys, updateKey } from '../keys/key-repository.ts';
import { createKey } from '../keys/key-service.ts';
import type { Database } from '../store/database.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import { type ConsoleKey, ConsoleKeySchema, SimpleKeyInputSchema } from './contract/keys.ts';

export type ConsoleKeysDeps = { db: Database; hasher: KeyHasher; keyChanges: KeyChangeSync; now: () => Date };

const KindQuerySchema = z.object({ kind: z.enum(['model', 'provisioning', 'agent']).default('model') });
const IdParamsSchema = z.object({ id: z.string() });
/** The console lists every key of a kind at once (an account holds hundreds, not millions). */
const LIST_LIMIT = 1_000;

const toConsoleKey = (record: ApiKeyRecord, now: Date): ConsoleKey => ConsoleKeySchema.parse(toKeyObject(record, now));

function settingsOrBadRequest(input: Parameters<typeof toKeySettings>[0]) {
  try {
    return toKeySettings(input);
  } catch (error) {
    if (error instanceof KeyInputConflict) throw new JunctionError('invalid_request', error.message, { param: error.param });
    throw error;
  }
}

/**
 * Keys of all three kinds for the session's account. Model keys follow exactly the
 * rules of `/v1/keys` (same schemas, PATCH where blank clears); provisioning and agent
 * keys are created and revoked here (and by the operator's CLI) only.
 */
export async function consoleKeysRoutes(app: FastifyInstance, deps: ConsoleKeysDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const manager = requireConsoleUser(deps.db, deps.now, 'admin');

  const announce = async (change: { lookupId: string; changeId: string }) => {
    deps.keyChanges.changedHere(change.lookupId);
    await deps.keyChanges.propagated(change.changeId);
  };

  app.get('/keys', { preHandler: reader }, async (request) => {
    const { kind } = parseInput(KindQuerySchema, request.query, 'query string');
    const page = await listKeys(deps.db, consoleCaller(request).accountId, { limit: LIST_LIMIT, offset: 0, kinds: [kind] });
    const now = deps.now();
    return { data: page.keys.map((key) => toConsoleKey(key, now)) };
  });

  app.post('/keys', { preHandler: manager }, async (request, reply) => {
    const input = parseInput(CreateKeySchema, { ...(request.body as object), kind: 'model' });
    if (input.expires_at && input.expires_at.getTime() <= deps.now().getTime()) {
      throw new JunctionError('invalid_request', "'expires_at' must be in the future.", { param: 'expires_at' });
    }
    const { kind: _kind, ...rest } = input;
    const created = await createKey(deps.db, deps.hasher, { accountId: consoleCaller(request).accountId, kind: 'model', settings: { ...settingsOrBadRequest(rest), name: input.name } });
    return reply.status(201).send({ data: toConsoleKey(created.record, deps.now()), key: created.plainKey });
  });

  app.patch('/keys/:id', { preHandler: manager }, async (request) => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const settings = settingsOrBadRequest(parseInput(UpdateKeySchema, request.body));
    const updated = await updateKey(deps.db, consoleCaller(request).accountId, id, settings);
    if (!updated) throw new JunctionError('not_found', `No key with id '${id}' in this account.`);
    await announce({ lookupId: updated.record.lookupId, changeId: updated.changeId });
    return { data: toConsoleKey(updated.record, deps.now()) };
  });

  for (const [path, kind] of [['/keys', 'model'], ['/provisioning-keys', 'provisioning'], ['/agent-keys', 'agent']] as const) {
    if (kind !== 'model') {
      app.post(path, { preHandler: manager }, async (request, reply) => {
        const input = parseInput(SimpleKeyInputSchema, request.body);
        const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
        if (expiresAt && expiresAt.getTime() <= deps.now().getTime()) {
          throw new JunctionError('invalid_request', "'expires_at' must be in the future.", { param: 'expires_at' });
        }
        const created = await createKey(deps.db, deps.hasher, { accountId: consoleCaller(request).accountId, kind, settings: { name: input.name, expiresAt } });
        return reply.status(201).send({ data: toConsoleKey(created.record, deps.now()), key: created.plainKey });
      });
    }
    app.delete(`${path}/:id`, { preHandler: manager }, async (request) => {
      const { id } = parseInput(IdParamsSchema, request.params, 'path');
      const deleted = await deleteOfKind(deps.db, consoleCaller(request).accountId, id, kind);
      if (!deleted) throw new JunctionError('not_found', `No ${kind} key with id '${id}' in this account.`);
      await announce(deleted);
      return { deleted: true };
    });
  }
}

/** Deletes a key only if it is of the kind the route names (a revoke on /agent-keys never deletes a model key). */
async function deleteOfKind(db: Database, accountId: string, id: string, kind: KeyKind) {
  const found = await db.query<{ kind: string }>('SELECT kind FROM api_keys WHERE id::text = $1 AND account_id = $2 AND deleted_at IS NULL', [id, accountId]);
  if (found.rows[0]?.kind !== kind) return undefined;
  return deleteKey(db, accountId, id, 'operator');
}
