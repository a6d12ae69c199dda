/**
 * Unknown fields a native route found inside known objects (a new field of a content part
 * or a tool definition), carried to an adapter of the route's own format so the upstream
 * receives them where the caller put them. They ride in the format's `providerOptions`
 * entry under a symbol key, which no JSON body ever serializes.
 */
export const NESTED_FIELDS = Symbol('junction.nestedFields');

/** One nested field: where it was, its value, and the known text fields of the object that held it. */
export type NestedField = {
  /** The dotted path, as `x-junction-dropped-params` names it. */
  name: string;
  path: ReadonlyArray<string | number>;
  value: unknown;
  /** The holder's identifying fields (type, role, name, id, text…), which the target object must have too. */
  match: Readonly<Record<string, string>>;
  /** Set once an adapter of the same format put it into the body it sent. */
  applied: boolean;
};

/** The fields that identify an object across the request and the body built from it. */
const IDENTIFYING = ['type', 'role', 'name', 'id', 'tool_use_id', 'tool_call_id', 'text', 'url', 'mimeType', 'media_type'] as const;

export function identifyingFields(holder: Readonly<Record<string, unknown>>): Record<string, string> {
  const match: Record<string, string> = {};
  for (const key of IDENTIFYING) {
    const value = holder[key];
    if (typeof value === 'string') match[key] = value;
  }
  return match;
}

type Carrier = Record<string, unknown> & { [NESTED_FIELDS]?: NestedField[] };

/** The nested fields a front-end left in this `providerOptions` entry. */
export const nestedFieldsIn = (options: Record<string, unknown> | undefined): NestedField[] | undefined => (options as Carrier | undefined)?.[NESTED_FIELDS];

export function attachNestedFields(options: Record<string, unknown>, fields: NestedField[]): void {
  (options as Carrier)[NESTED_FIELDS] = fields;
}

/**
 * Puts each field back at its path in an outgoing body of the same format. A field goes in
 * only where the body has an object at that place holding the same identifying fields as
 * the one it came from, so a body whose shape moved (messages merged, a part rewritten)
 * never gets a field on the wrong object; those stay unapplied and are named as dropped.
 */
export function applyNestedFields(body: unknown, fields: readonly NestedField[] | undefined): void {
  if (!fields) return;
  for (const field of fields) {
    const holder = valueAt(body, field.path.slice(0, -1));
    const key = field.path.at(-1);
    if (typeof key !== 'string' || !isRecord(holder) || Object.hasOwn(holder, key)) continue;
    if (!Object.entries(field.match).every(([name, value]) => holder[name] === value)) continue;
    Object.defineProperty(holder, key, { value: field.value, enumerable: true, writable: true, configurable: true });
    field.applied = true;
  }
}

function valueAt(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let node = root;
  for (const step of path) {
    if (Array.isArray(node) && typeof step === 'number') node = node[step];
    else if (isRecord(node) && typeof step === 'string' && Object.hasOwn(node, step)) node = node[step];
    else return undefined;
  }
  return node;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
