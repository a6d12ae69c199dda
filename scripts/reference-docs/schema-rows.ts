/**
 * A zod schema's input side, as JSON Schema, flattened into one documentation row per key:
 * its path (`providers.<id>.models[].prices.input`), its type in words, its default and the
 * description the schema carries. Reading JSON Schema rather than zod's internals keeps this
 * on a public, stable format.
 */
type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
};

export type SchemaRow = { path: string; type: string; default: string; description: string };

const isObject = (schema: JsonSchema): boolean => schema.type === 'object' && (schema.properties !== undefined || typeof schema.additionalProperties === 'object');

function bounds(schema: JsonSchema): string {
  const integer = schema.type === 'integer';
  // An integer above n is one of n + 1 or more; a number above n is just that.
  const above = schema.exclusiveMinimum !== undefined && !integer ? schema.exclusiveMinimum : undefined;
  const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined && integer ? schema.exclusiveMinimum + 1 : undefined);
  const high = schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER ? schema.maximum : undefined;
  if (low !== undefined && high !== undefined) return ` ${low}–${high}`;
  if (low !== undefined) return ` ≥ ${low}`;
  if (above !== undefined) return ` > ${above}`;
  return high !== undefined ? ` ≤ ${high}` : '';
}

/** The type in a few words: `integer ≥ 1`, `one of a, b`, `list of string`, `USD (number or decimal string)`. */
const itemsText = (items: JsonSchema): string => (isObject(items) ? 'objects' : describeType(items));

export function describeType(schema: JsonSchema): string {
  if (schema.const !== undefined) return `\`${String(schema.const)}\``;
  if (schema.enum) return `one of ${schema.enum.map((value) => `\`${String(value)}\``).join(', ')}`;
  if (schema.anyOf) {
    const kinds = schema.anyOf.map((variant) => (isObject(variant) ? 'object' : describeType(variant)));
    if (kinds.length === 2 && kinds.includes('number ≥ 0') && kinds.includes('string')) return 'USD (number or decimal string)';
    return [...new Set(kinds)].join(' or ');
  }
  if (schema.type === 'array') return `list of ${schema.items ? itemsText(schema.items) : 'values'}`;
  if (schema.type === 'object') return typeof schema.additionalProperties === 'object' && !isObject(schema.additionalProperties) ? `map of ${describeType(schema.additionalProperties)}` : 'object';
  if (schema.format === 'uri') return 'URL';
  return `${Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any')}${bounds(schema)}`;
}

const shownDefault = (value: unknown): string => (value === undefined ? '' : `\`${JSON.stringify(value)}\``);

/** Every documented key under `schema`, depth first, in the schema's own order. */
export function schemaRows(schema: JsonSchema, path = ''): SchemaRow[] {
  const rows: SchemaRow[] = [];
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const childPath = path ? `${path}.${name}` : name;
    rows.push({ path: childPath, type: describeType(child), default: shownDefault(child.default), description: child.description ?? '' });
    rows.push(...schemaRows(child, childPath));
  }
  // A map's entries: `providers.<id>.base_url`.
  if (typeof schema.additionalProperties === 'object' && isObject(schema.additionalProperties)) rows.push(...schemaRows(schema.additionalProperties, `${path}.<id>`));
  if (schema.type === 'array' && schema.items) rows.push(...schemaRows(schema.items, `${path}[]`));
  for (const variant of schema.anyOf ?? []) if (isObject(variant)) rows.push(...schemaRows(variant, path));
  return rows;
}

export const markdownTable = (header: string[], rows: string[][]): string =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((cells) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`)].join('\n');
