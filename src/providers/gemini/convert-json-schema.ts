import type { GeminiSchema } from './gemini-wire-schemas.ts';

/**
 * JSON Schema → the OpenAPI 3.0 subset Gemini's `Schema` accepts. Gemini answers 400 to
 * keys it does not know (`additionalProperties`, `$schema`, `$ref`, `const`…), so this
 * keeps an allowlist, inlines local `$ref`s, and rewrites the common idioms:
 * `type: [X, "null"]` → `type: X, nullable: true`, `const` → one-value `enum`,
 * `oneOf` → `anyOf`. Lossy: constraints Gemini lacks are dropped, not enforced.
 */
const KEPT_KEYS = new Set([
  'type',
  'title',
  'description',
  'nullable',
  'enum',
  'default',
  'example',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'propertyOrdering',
]);
/** Other formats (uri, email…) make Gemini reject the whole request. */
const KEPT_FORMATS = new Set(['enum', 'date-time', 'float', 'double', 'int32', 'int64']);
const MAX_REF_DEPTH = 8;

export function convertJsonSchema(schema: Record<string, unknown>): GeminiSchema {
  return convertNode(schema, schema, 0);
}

function convertNode(node: unknown, root: Record<string, unknown>, refDepth: number): GeminiSchema {
  if (!isRecord(node)) return {};
  const ref = node['$ref'];
  if (typeof ref === 'string') {
    const target = resolveRef(ref, root);
    // Recursive schemas cannot be inlined forever; past the limit the node is an open object.
    if (target === undefined || refDepth >= MAX_REF_DEPTH) return { type: 'object' };
    return convertNode({ ...target, ...withoutKey(node, '$ref') }, root, refDepth + 1);
  }

  const allOf = node['allOf'];
  if (Array.isArray(allOf)) {
    // Gemini has no allOf; a shallow merge covers the usual "base + extension" use.
    const merged = allOf.filter(isRecord).reduce<Record<string, unknown>>(mergeSchemas, withoutKey(node, 'allOf'));
    return convertNode(merged, root, refDepth);
  }

  const result: GeminiSchema = {};
  for (const [key, value] of Object.entries(node)) if (KEPT_KEYS.has(key)) result[key] = value;

  const type = node['type'];
  if (Array.isArray(type)) {
    const types = type.filter((entry): entry is string => typeof entry === 'string');
    const nonNull = types.filter((entry) => entry !== 'null');
    if (types.includes('null')) result['nullable'] = true;
    if (nonNull.length === 1) result['type'] = nonNull[0];
    else {
      delete result['type'];
      if (nonNull.length > 1) result['anyOf'] = nonNull.map((entry) => ({ type: entry }));
    }
  } else if (type === 'null') {
    delete result['type'];
    result['nullable'] = true;
  }

  if (typeof node['format'] === 'string' && KEPT_FORMATS.has(node['format'])) result['format'] = node['format'];
  if ('const' in node && typeof node['const'] === 'string') result['enum'] = [node['const']];
  // Gemini enums are string-only; a numeric enum is dropped but keeps its numeric type.
  let values = result['enum'];
  if (Array.isArray(values) && values.includes(null)) {
    values = result['enum'] = values.filter((value) => value !== null);
    result['nullable'] = true;
  }
  if (Array.isArray(values) && !values.every((value) => typeof value === 'string')) {
    delete result['enum'];
    if (result['type'] === undefined && values.length > 0 && values.every((value) => typeof value === 'number')) {
      result['type'] = values.every((value) => Number.isInteger(value)) ? 'integer' : 'number';
    }
  }
  if (Array.isArray(result['enum']) && result['type'] === undefined) result['type'] = 'string';

  const variants = node['anyOf'] ?? node['oneOf'];
  if (Array.isArray(variants)) {
    const kept = variants.filter((variant) => !(isRecord(variant) && variant['type'] === 'null'));
    if (kept.length < variants.length) result['nullable'] = true;
    if (kept.length === 1) Object.assign(result, convertNode(kept[0], root, refDepth));
    else if (kept.length > 1) result['anyOf'] = kept.map((variant) => convertNode(variant, root, refDepth));
  }

  const properties = node['properties'];
  if (isRecord(properties)) {
    const converted: Record<string, GeminiSchema> = {};
    for (const [name, value] of Object.entries(properties)) converted[name] = convertNode(value, root, refDepth);
    result['properties'] = converted;
    const required = node['required'];
    if (Array.isArray(required)) {
      const names = required.filter((name): name is string => typeof name === 'string' && name in converted);
      if (names.length > 0) result['required'] = names;
    }
  }
  if (node['items'] !== undefined) result['items'] = convertNode(node['items'], root, refDepth);
  return result;
}

function resolveRef(ref: string, root: Record<string, unknown>): Record<string, unknown> | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const segment of ref.slice(2).split('/')) {
    if (!isRecord(current)) return undefined;
    current = current[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return isRecord(current) ? current : undefined;
}

function mergeSchemas(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...base, ...extra };
  if (isRecord(base['properties']) || isRecord(extra['properties'])) {
    merged['properties'] = { ...asRecord(base['properties']), ...asRecord(extra['properties']) };
  }
  if (Array.isArray(base['required']) || Array.isArray(extra['required'])) {
    merged['required'] = [...asArray(base['required']), ...asArray(extra['required'])];
  }
  return merged;
}

function withoutKey(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _removed, ...rest } = record;
  return rest;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const asRecord = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
