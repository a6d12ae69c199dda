import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { JunctionError } from '../../core/errors.ts';
import type { KeyAuthenticator } from '../../keys/key-authenticator.ts';
import type { KeyChangeSync } from '../../keys/key-change-sync.ts';
import type { KeyHasher } from '../../keys/key-hash.ts';
import { deleteKey, findManagedKey, listKeys, updateKey } from '../../keys/key-repository.ts';
import { createKey } from '../../keys/key-service.ts';
import { authenticatedKey, requireKey } from '../../http/auth-hook.ts';
import { parseInput } from '../../http/parse-body.ts';
import type { Database } from '../../store/database.ts';
import { CreateKeySchema, KeyInputConflict, toKeySettings, UpdateKeySchema } from './key-input-schema.ts';
import { type LimitWindow, shownLimitWindow, toKeyObject } from './key-view.ts';

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
  kind: z.enum(['model', 'agent']).optional(),
});
const IdParamsSchema = z.object({ id: z.string() });

function settingsOrBadRequest(input: Parameters<typeof toKeySettings>[0], currentWindow?: LimitWindow) {
  try {
    return toKeySettings(input, currentWindow);
  } catch (error) {
    if (error instanceof KeyInputConflict) throw new JunctionError('invalid_request', error.message, { param: error.param });
    throw error;
  }
}

const notFound = (id: string) => new JunctionError('not_found', `No key with id '${id}' in this account.`);

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
    const body = request.body as Record<string, unknown> | null;
    if (body && typeof body === 'object' && 'disabled' in body) {
      throw new JunctionError('invalid_request', "'disabled' cannot be set when creating a key; PATCH it afterwards.", {
        param: 'disabled',
      });
    }
    const input = parseInput(CreateKeySchema, body);
    if (input.expires_at && input.expires_at.getTime() <= deps.now().getTime()) {
      throw new JunctionError('invalid_request', "'expires_at' must be in the future.", { param: 'expires_at' });
    }
    const { kind, ...rest } = input;
    const settings = settingsOrBadRequest(rest);
    const created = await createKey(deps.db, deps.hasher, {
      accountId: caller.accountId,
      kind,
      settings: { ...settings, name: input.name },
    });
    // The plain key is in this response and nowhere else, ever.
    return reply.status(201).send({ data: toKeyObject(created.record, deps.now()), key: created.plainKey });
  });

  app.get('/keys/:id', async (request) => {
    const caller = authenticatedKey(request);
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const key = await findManagedKey(deps.db, caller.accountId, id);
    if (!key) throw notFound(id);
    return { data: toKeyObject(key, deps.now()) };
  });

  app.patch('/keys/:id', async (request) => {
    const caller = authenticatedKey(request);
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const input = parseInput(UpdateKeySchema, request.body);
    let currentWindow: LimitWindow | undefined;
    if (input.limit !== undefined && input.limit_reset === undefined) {
      const key = await findManagedKey(deps.db, caller.accountId, id);
      if (!key) throw notFound(id);
      currentWindow = shownLimitWindow(key, deps.now());
    }
    const settings = settingsOrBadRequest(input, currentWindow);
    const updated = await updateKey(deps.db, caller.accountId, id, settings);
    if (!updated) throw notFound(id);
    deps.keyChanges.changedHere(updated.record.lookupId);
    await deps.keyChanges.propagated(updated.changeId);
    return { data: toKeyObject(updated.record, deps.now()) };
  });

  app.delete('/keys/:id', async (request) => {
    const caller = authenticatedKey(request);
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const deleted = await deleteKey(deps.db, caller.accountId, id);
    if (!deleted) throw notFound(id);
    deps.keyChanges.changedHere(deleted.lookupId);
    await deps.keyChanges.propagated(deleted.changeId);
    return { deleted: true };
  });
}
