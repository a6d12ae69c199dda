import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { authenticatedKey, requireKey } from '../../http/auth-hook.ts';
import { parseInput } from '../../http/parse-body.ts';
import type { KeyAuthenticator } from '../../keys/key-authenticator.ts';
import type { KeyChangeSync } from '../../keys/key-change-sync.ts';
import { announceKeyChange, changeKey, createKeyFromInput, keyNotFound, refuseCreateOnlyFields } from '../../keys/key-changes.ts';
import type { KeyHasher } from '../../keys/key-hash.ts';
import { CreateKeySchema, UpdateKeySchema } from '../../keys/key-input-schema.ts';
import { ManagedKeyKindSchema } from '../../keys/key-kind.ts';
import { deleteKey, findManagedKey, listKeys } from '../../keys/key-repository.ts';
import type { Database } from '../../store/database.ts';
import { toKeyObject } from './key-view.ts';

export type KeysRoutesDeps = {
  db: Database;
  hasher: KeyHasher;
  authenticator: KeyAuthenticator;
  keyChanges: KeyChangeSync;
  now: () => Date;
};

const ListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  kind: ManagedKeyKindSchema.optional(),
});
const IdParamsSchema = z.object({ id: z.string() });

/** `/v1/keys`: key management for provisioning keys only. */
export async function keysRoutes(app: FastifyInstance, deps: KeysRoutesDeps): Promise<void> {
  app.addHook('preHandler', requireKey(deps.authenticator, { kinds: ['provisioning'] }));

  app.get('/keys', async (request) => {
    const caller = authenticatedKey(request);
    const query = parseInput(ListQuerySchema, request.query, 'query string');
    const page = await listKeys(deps.db, caller.accountId, {
      limit: query.limit,
      offset: query.offset,
      ...(query.kind ? { kinds: [query.kind] } : {}),
    });
    const now = deps.now();
    return {
      data: page.keys.map((key) => toKeyObject(key, now)),
      has_more: page.hasMore,
      next_offset: page.hasMore ? query.offset + query.limit : null,
    };
  });

  app.post('/keys', async (request, reply) => {
    const caller = authenticatedKey(request);
    refuseCreateOnlyFields(request.body);
    const input = parseInput(CreateKeySchema, request.body);
    const created = await createKeyFromInput(deps, { accountId: caller.accountId, input, now: deps.now() });
    // The plain key is in this response and nowhere else, ever.
    return reply.status(201).send({ data: toKeyObject(created.record, deps.now()), key: created.plainKey });
  });

  app.get('/keys/:id', async (request) => {
    const caller = authenticatedKey(request);
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const key = await findManagedKey(deps.db, caller.accountId, id);
    if (!key) throw keyNotFound(id);
    return { data: toKeyObject(key, deps.now()) };
  });

  app.patch('/keys/:id', async (request) => {
    const caller = authenticatedKey(request);
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const input = parseInput(UpdateKeySchema, request.body);
    const updated = await changeKey(deps, { accountId: caller.accountId, id, input, now: deps.now() });
    return { data: toKeyObject(updated, deps.now()) };
  });

  app.delete('/keys/:id', async (request) => {
    const caller = authenticatedKey(request);
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const deleted = await deleteKey(deps.db, caller.accountId, id);
    if (!deleted) throw keyNotFound(id);
    await announceKeyChange(deps.keyChanges, deleted);
    return { deleted: true };
  });
}
