import type { Catalog, CatalogModel, Capability } from '../catalog/types.ts';
import { isModelInPlan, resolveModel } from '../catalog/lookup.ts';
import { JunctionError } from '../core/errors.ts';
import type { ApiKeyRecord } from '../keys/key-record.ts';

/**
 * Resolves a requested model id (or alias) and checks that this key may use it for
 * this kind of call: known (404 model_not_found), in the account's plan and the key's
 * allowlist (403 model_not_allowed), and able to do it (400).
 */
export function resolveAllowedModel(catalog: Catalog, key: ApiKeyRecord, plan: string, requested: string, capability: Capability, param = 'model'): CatalogModel {
  const model = resolveModel(catalog, requested);
  if (!model) {
    throw new JunctionError('model_not_found', `The model '${requested}' does not exist or its provider is not configured. GET /v1/models lists the models you can use.`, { param });
  }
  if (!isModelInPlan(catalog, plan, model.canonicalId)) {
    throw new JunctionError('model_not_allowed', `The model '${model.id}' is not in your account's plan (${plan}). GET /v1/models lists the models you can use.`, { param });
  }
  if (key.allowedModels && !key.allowedModels.includes(model.id) && !key.allowedModels.includes(model.canonicalId) && !key.allowedModels.includes(requested)) {
    throw new JunctionError('model_not_allowed', `This key may not use '${model.id}'. It is limited to: ${key.allowedModels.join(', ') || '(no models)'}.`, { param });
  }
  if (!model.capabilities.has(capability)) {
    throw new JunctionError('invalid_request', `The model '${model.id}' does not support ${capability.replaceAll('_', ' ')}.`, { param });
  }
  return model;
}

/** Whether a model is visible to a key (GET /models): plan ∩ allowlist. */
export const isVisibleTo = (catalog: Catalog, key: ApiKeyRecord, plan: string, model: CatalogModel): boolean =>
  isModelInPlan(catalog, plan, model.canonicalId) && (!key.allowedModels || key.allowedModels.includes(model.id) || key.allowedModels.includes(model.canonicalId));
