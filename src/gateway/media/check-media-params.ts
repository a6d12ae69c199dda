import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { CatalogModel, JsonSchemaObject } from '../../catalog/types.ts';
import { JunctionError } from '../../core/errors.ts';

/**
 * Checks a media request's parameters (n, size, quality, voice, response_format…)
 * against the model's `media_params_schema` from the catalog — the same schema
 * /v1/models publishes, so what a client is told and what we enforce never differ.
 * Without the check a refused parameter would only surface as an upstream 400 after
 * the reservation, and per-image prices keyed by size/quality would meet values the
 * price table does not know.
 *
 * Not strict: operators may write schemas with keywords Ajv does not know. A schema
 * that does not compile at all is not enforced (the upstream still validates).
 */
const ajv = new Ajv2020({ strict: false, allErrors: false });
const compiled = new WeakMap<JsonSchemaObject, ValidateFunction | null>();

function validatorFor(schema: JsonSchemaObject): ValidateFunction | null {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    try {
      validate = ajv.compile(schema);
    } catch {
      validate = null;
    }
    compiled.set(schema, validate);
  }
  return validate;
}

/** The schema without some parameters (neither allowed-values nor required): those the provider checks itself. */
const narrowed = new WeakMap<JsonSchemaObject, Map<string, JsonSchemaObject>>();
function without(schema: JsonSchemaObject, names: readonly string[]): JsonSchemaObject {
  const key = names.join(',');
  const cache = narrowed.get(schema) ?? new Map<string, JsonSchemaObject>();
  narrowed.set(schema, cache);
  let result = cache.get(key);
  if (!result) {
    const properties = { ...((schema['properties'] as Record<string, unknown> | undefined) ?? {}) };
    for (const name of names) delete properties[name];
    const required = ((schema['required'] as string[] | undefined) ?? []).filter((name) => !names.includes(name));
    result = { ...schema, properties, required };
    cache.set(key, result);
  }
  return result;
}

/**
 * Throws a 400 naming the first offending parameter; `params` holds only what the caller
 * set. `providerChecks` names parameters passed on unchecked (a custom voice's id is only
 * the provider's to know).
 */
export function checkMediaParams(model: CatalogModel, params: Record<string, unknown>, providerChecks: readonly string[] = []): void {
  const full = model.mediaParamsSchema;
  if (!full) return;
  const schema = providerChecks.length > 0 ? without(full, providerChecks) : full;
  const validate = validatorFor(schema);
  const defined = Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
  if (!validate || validate(defined)) return;
  const error = validate.errors?.[0];
  if (!error) throw new JunctionError('invalid_request', `Invalid parameters for ${model.id}.`);
  const { param, message } = describe(error);
  throw new JunctionError('invalid_request', `Invalid '${param}' for ${model.id}: ${message}.`, { param });
}

function describe(error: ErrorObject): { param: string; message: string } {
  const path = error.instancePath.split('/').filter(Boolean).join('.');
  const params: Record<string, unknown> = error.params;
  switch (error.keyword) {
    case 'additionalProperties':
      return { param: String(params['additionalProperty']), message: 'this model does not accept the parameter' };
    case 'required':
      return { param: String(params['missingProperty']), message: 'this model requires the parameter' };
    case 'enum': {
      const allowed = Array.isArray(params['allowedValues']) ? params['allowedValues'].map((value) => JSON.stringify(value)).join(', ') : '';
      return { param: path, message: `must be one of ${allowed}` };
    }
    default:
      return { param: path, message: error.message ?? 'not allowed' };
  }
}
