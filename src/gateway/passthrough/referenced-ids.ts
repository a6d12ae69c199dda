import { JunctionError } from '../../core/errors.ts';

/**
 * The provider object ids a pass-through request names, in its path and its JSON body:
 * each must be one of the caller's account's objects (see passthrough-owners.ts).
 */

/** Path words after a family that name an action, not an object id. */
const FAMILY_ACTIONS: Record<string, ReadonlySet<string>> = {
  responses: new Set(['compact', 'input_tokens']),
  threads: new Set(['runs']),
};

export type PathTarget = {
  family: string;
  /** The top-level object the path names; objects under it are scoped to it by the provider. */
  objectId: string | undefined;
  /** True for `/{family}/{id}` itself, without a sub-path. */
  isObject: boolean;
};

/**
 * The family and the top-level object id of a path after `/v1` (segments are decoded,
 * as the provider decodes them). An empty segment is refused: `/files/` could reach the
 * provider's own list.
 */
export function pathTarget(path: string): PathTarget {
  const [, family = '', first, ...rest] = path.split('/');
  if (first === undefined) return { family, objectId: undefined, isObject: false };
  if ([first, ...rest].includes('')) throw new JunctionError('not_found', `No such object at ${path}.`);
  const objectId = decodeURIComponent(first);
  if (FAMILY_ACTIONS[family]?.has(objectId)) return { family, objectId: undefined, isObject: false };
  return { family, objectId, isObject: rest.length === 0 };
}

/** Body fields whose string (or array of strings) values are provider object ids. */
const ID_FIELDS = new Set(['previous_response_id', 'response_id', 'file_id', 'file_ids', 'input_file_id', 'vector_store_id', 'vector_store_ids', 'assistant_id', 'thread_id', 'conversation']);

/** Free-form key/value maps of the caller's own: their keys are not field names. */
const FREE_FORM = new Set(['metadata', 'attributes']);

export type BodyReference = { id: string; field: string };

/**
 * Every id a JSON body names in a known id field, at any depth (a `file_id` in a message
 * part, `vector_store_ids` in a tool, `tool_resources`, …), plus `item_reference` items
 * and a `conversation` given as `{id}`.
 */
export function bodyReferences(body: unknown): BodyReference[] {
  const found: BodyReference[] = [];
  const visit = (value: unknown, field: string | undefined): void => {
    if (typeof value === 'string') {
      if (field !== undefined && ID_FIELDS.has(field)) found.push({ id: value, field });
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, field);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    if (field === 'conversation' && typeof record['id'] === 'string') found.push({ id: record['id'], field });
    if (record['type'] === 'item_reference' && typeof record['id'] === 'string') found.push({ id: record['id'], field: 'id' });
    for (const [key, child] of Object.entries(record)) {
      if (!FREE_FORM.has(key)) visit(child, key);
    }
  };
  visit(body, undefined);
  return found;
}
