/**
 * Gemini `Schema` (an OpenAPI 3.0 subset: upper-case `type: 'STRING'`, `nullable`,
 * `example`, `propertyOrdering`) → JSON Schema, which the canonical tools and
 * response formats carry. `nullable: true` becomes `type: [t, 'null']`; Gemini-only
 * keys (`example`, `propertyOrdering`) are dropped; unknown keys pass through so
 * nothing a client wrote is silently lost.
 */
const DROPPED_KEYS = new Set(['example', 'propertyOrdering', 'nullable', 'type', 'properties', 'items', 'anyOf']);

export function geminiSchemaToJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) if (!DROPPED_KEYS.has(key)) result[key] = value;

  const type = typeof schema['type'] === 'string' ? schema['type'].toLowerCase() : undefined;
  const jsonType = type === undefined || type === 'type_unspecified' ? undefined : type;
  if (schema['nullable'] === true) {
    if (jsonType !== undefined) result['type'] = [jsonType, 'null'];
    if (Array.isArray(result['enum']) && !result['enum'].includes(null)) result['enum'] = [...result['enum'], null];
  } else if (jsonType !== undefined) {
    result['type'] = jsonType;
  }

  const properties = schema['properties'];
  if (isRecord(properties)) {
    result['properties'] = Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, isRecord(value) ? geminiSchemaToJsonSchema(value) : value]));
  }
  const items = schema['items'];
  if (isRecord(items)) result['items'] = geminiSchemaToJsonSchema(items);
  const anyOf = schema['anyOf'];
  if (Array.isArray(anyOf)) result['anyOf'] = anyOf.map((value) => (isRecord(value) ? geminiSchemaToJsonSchema(value) : value));
  return result;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
