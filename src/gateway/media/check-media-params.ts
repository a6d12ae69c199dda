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

/** Throws a 400 naming the first offending parameter; `params` holds only what the caller set. */
export function checkMediaParams(model: CatalogModel, params: Record<string, unknown>): void {
  const schema = model.mediaParamsSchema;
  if (!schema) return;
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
