import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { toKeyObject } from '../gateway/keys/key-view.ts';
import { parseInput } from '../http/parse-body.ts';
import type { KeyChangeSync } from '../keys/key-change-sync.ts';
import { announceKeyChange, changeKey, createKeyFromInput, keyNotFound, refuseCreateOnlyFields, requireFutureExpiry } from '../keys/key-changes.ts';
import type { KeyHasher } from '../keys/key-hash.ts';
import { CreateKeySchema, UpdateKeySchema } from '../keys/key-input-schema.ts';
import { type KeyKind, KeyKindSchema } from '../keys/key-kind.ts';
import type { ApiKeyRecord } from '../keys/key-record.ts';
import { deleteKey, listKeys } from '../keys/key-repository.ts';
import { createKey } from '../keys/key-service.ts';
import type { Database } from '../store/database.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import { type ConsoleKey, ConsoleKeySchema, SimpleKeyInputSchema } from './contract/keys.ts';

export type ConsoleKeysDeps = { db: Database; hasher: KeyHasher; keyChanges: KeyChangeSync; now: () => Date };

const KindQuerySchema = z.object({ kind: KeyKindSchema.default('model') });
const IdParamsSchema = z.object({ id: z.string() });
/** The console lists every key of a kind at once (an account holds hundreds, not millions). */
const LIST_LIMIT = 1_000;

const toConsoleKey = (record: ApiKeyRecord, now: Date): ConsoleKey => ConsoleKeySchema.parse(toKeyObject(record, now));

/**
 * Keys of all three kinds for the session's account. Model keys are created and changed
 * by the same rules as `/v1/keys` (src/keys/key-changes.ts); provisioning and agent
 * keys are created and revoked here (and by the operator's CLI) only.
 */
export async function consoleKeysRoutes(app: FastifyInstance, deps: ConsoleKeysDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const manager = requireConsoleUser(deps.db, deps.now, 'admin');

  app.get('/keys', { preHandler: reader }, async (request) => {
    const { kind } = parseInput(KindQuerySchema, request.query, 'query string');
    const page = await listKeys(deps.db, consoleCaller(request).accountId, { limit: LIST_LIMIT, offset: 0, kinds: [kind] });
    const now = deps.now();
    return { data: page.keys.map((key) => toConsoleKey(key, now)) };
  });

  app.post('/keys', { preHandler: manager }, async (request, reply) => {
    refuseCreateOnlyFields(request.body);
    const input = parseInput(CreateKeySchema, { ...(request.body as object), kind: 'model' });
    const created = await createKeyFromInput(deps, { accountId: consoleCaller(request).accountId, input, now: deps.now() });
    return reply.status(201).send({ data: toConsoleKey(created.record, deps.now()), key: created.plainKey });
  });

  app.patch('/keys/:id', { preHandler: manager }, async (request) => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const input = parseInput(UpdateKeySchema, request.body);
    const updated = await changeKey(deps, { accountId: consoleCaller(request).accountId, id, input, now: deps.now() });
    return { data: toConsoleKey(updated, deps.now()) };
  });

  for (const [path, kind] of [
    ['/keys', 'model'],
    ['/provisioning-keys', 'provisioning'],
    ['/agent-keys', 'agent'],
  ] as const) {
    if (kind !== 'model') {
      app.post(path, { preHandler: manager }, async (request, reply) => {
        const input = parseInput(SimpleKeyInputSchema, request.body);
        const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
        requireFutureExpiry(expiresAt, deps.now());
        const created = await createKey(deps.db, deps.hasher, { accountId: consoleCaller(request).accountId, kind, settings: { name: input.name, expiresAt } });
        return reply.status(201).send({ data: toConsoleKey(created.record, deps.now()), key: created.plainKey });
      });
    }
    app.delete(`${path}/:id`, { preHandler: manager }, async (request) => {
      const { id } = parseInput(IdParamsSchema, request.params, 'path');
      const deleted = await deleteOfKind(deps.db, consoleCaller(request).accountId, id, kind);
      if (!deleted) throw keyNotFound(id, kind);
      await announceKeyChange(deps.keyChanges, deleted);
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
