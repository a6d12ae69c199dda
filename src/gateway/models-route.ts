import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toModelListEntry } from '../catalog/model-list.ts';
import { resolveModel } from '../catalog/lookup.ts';
import type { Catalog, CatalogModel } from '../catalog/types.ts';
import { isJunctionError, JunctionError } from '../core/errors.ts';
import { authenticatedKey, requireKey } from '../http/auth-hook.ts';
import { errorBody } from '../http/error-shapes.ts';
import type { KeyAuthenticator } from '../keys/key-authenticator.ts';
import type { AccountPlans } from '../pipeline/account-plans.ts';
import { isVisibleTo } from '../pipeline/model-access.ts';
import { describeGeminiModel, listGeminiModels } from './gemini/gemini-routes.ts';

export type ModelsRouteDeps = { authenticator: KeyAuthenticator; catalog: Catalog; plans: AccountPlans };

/**
 * `GET /v1/models`: exactly the models this key may call (plan ∩ allowlist), with prices
 * and capabilities. A caller that authenticates the Gemini way (`x-goog-api-key` or
 * `?key=`, as @google/genai 3 does against `/v1`) gets Gemini's shape instead.
 */
export async function modelsRoute(app: FastifyInstance, deps: ModelsRouteDeps): Promise<void> {
  const auth = requireKey(deps.authenticator, { kinds: ['model'] });

  app.get('/models', { preHandler: auth }, async (request, reply) => {
    if (usesGeminiAuth(request)) return inGeminiShape(reply, () => listGeminiModels(deps, request));
    const key = authenticatedKey(request);
    const plan = await deps.plans.planOf(key.accountId);
    return { object: 'list', data: deps.catalog.models.filter((model) => isVisibleTo(deps.catalog, key, plan, model)).map(toModelListEntry) };
  });

  // Model ids contain a slash (`openai/gpt-4o-mini`), so the id is the rest of the path.
  app.get('/models/*', { preHandler: auth }, async (request, reply) => {
    if (usesGeminiAuth(request)) return inGeminiShape(reply, () => describeGeminiModel(deps, request));
    const key = authenticatedKey(request);
    const id = (request.params as { '*': string })['*'];
    const plan = await deps.plans.planOf(key.accountId);
    const model = resolveModel(deps.catalog, id) ?? byBareName(deps.catalog, id);
    if (!model || !isVisibleTo(deps.catalog, key, plan, model)) throw new JunctionError('model_not_found', `The model '${id}' does not exist or is not available to this key.`, { param: 'model' });
    return toModelListEntry(model);
  });
}

/** Google's clients send the key in `x-goog-api-key` or `?key=`; OpenAI's and Anthropic's never do. */
function usesGeminiAuth(request: FastifyRequest): boolean {
  if (request.headers.authorization !== undefined || request.headers['x-api-key'] !== undefined) return false;
  if (request.headers['x-goog-api-key'] !== undefined) return true;
  const query = request.query as Record<string, unknown> | undefined;
  return typeof query?.['key'] === 'string';
}

/** The route's errors take OpenAI's shape; a Gemini caller gets Google's. */
async function inGeminiShape(reply: FastifyReply, answer: () => Promise<unknown>): Promise<unknown> {
  try {
    return await answer();
  } catch (error) {
    if (!isJunctionError(error)) throw error;
    return reply.code(error.status).send(errorBody(error, 'google'));
  }
}

/**
 * A provider's own bare name (`claude-sonnet-4-5`), as /v1/messages and /v1beta accept it:
 * the listed model of that upstream name, when exactly one provider lists it.
 */
function byBareName(catalog: Catalog, name: string): CatalogModel | undefined {
  if (name.includes('/')) return undefined;
  const matches = catalog.models.filter((model) => model.id === `${model.providerId}/${name}`);
  return matches.length === 1 ? matches[0] : undefined;
}
