import type { FastifyInstance } from 'fastify';
import { toModelListEntry } from '../catalog/model-list.ts';
import { resolveModel } from '../catalog/lookup.ts';
import type { Catalog } from '../catalog/types.ts';
import { JunctionError } from '../core/errors.ts';
import { authenticatedKey, requireKey } from '../http/auth-hook.ts';
import type { KeyAuthenticator } from '../keys/key-authenticator.ts';
import type { AccountPlans } from '../pipeline/account-plans.ts';
import { isVisibleTo } from '../pipeline/model-access.ts';

export type ModelsRouteDeps = { authenticator: KeyAuthenticator; catalog: Catalog; plans: AccountPlans };

/** `GET /v1/models`: exactly the models this key may call (plan ∩ allowlist), with prices and capabilities. */
export async function modelsRoute(app: FastifyInstance, deps: ModelsRouteDeps): Promise<void> {
  const auth = requireKey(deps.authenticator, { kinds: ['model'] });

  app.get('/models', { preHandler: auth }, async (request) => {
    const key = authenticatedKey(request);
    const plan = await deps.plans.planOf(key.accountId);
    return { object: 'list', data: deps.catalog.models.filter((model) => isVisibleTo(deps.catalog, key, plan, model)).map(toModelListEntry) };
  });

  // Model ids contain a slash (`openai/gpt-4o-mini`), so the id is the rest of the path.
  app.get('/models/*', { preHandler: auth }, async (request) => {
    const key = authenticatedKey(request);
    const id = (request.params as { '*': string })['*'];
    const plan = await deps.plans.planOf(key.accountId);
    const model = resolveModel(deps.catalog, id);
    if (!model || !isVisibleTo(deps.catalog, key, plan, model)) throw new JunctionError('model_not_found', `The model '${id}' does not exist or is not available to this key.`, { param: 'model' });
    return toModelListEntry(model);
  });
}
