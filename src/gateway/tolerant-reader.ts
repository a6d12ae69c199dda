import type { z } from 'zod';
import type { ProviderKind } from '../catalog/types.ts';
import type { ModelRequest } from '../core/model-types.ts';
import { isPlainRecord } from '../core/plain-record.ts';
import { parseInput } from '../http/parse-body.ts';
import { attachNestedFields, identifyingFields, type NestedField } from '../providers/nested-fields.ts';

/** The wire format a provider-format front-end speaks. */
export type WireFormat = 'openai' | 'anthropic' | 'gemini';

/** The response header naming the fields a call did not carry upstream. */
export const DROPPED_PARAMS_HEADER = 'x-junction-dropped-params';

/**
 * A body read the tolerant way: the known fields validated, the unknown ones set
 * aside. `topLevel` may still reach an upstream of the front-end's own format; so may
 * `nested` (inside messages, tools…), named by path, whose values `nestedFields` keeps:
 * an adapter of the same format puts them back where they were (providers/nested-fields.ts).
 */
export type TolerantBody<T> = { body: T; unknown: UnknownFields };
export type UnknownFields = { topLevel: Record<string, unknown> | undefined; nested: string[]; nestedFields?: NestedField[] };

/** Enough rounds for unknown fields that only show once an enclosing one is removed. */
const MAX_ROUNDS = 4;

/**
 * The tolerant reader of the provider-format routes (docs/gateway.md): `schema` stays strict,
 * and each field it reports as unrecognized is taken out of the body and remembered by
 * its path; anything else wrong (a known field of the wrong type, a limit, a feature
 * refused by name) is still the usual 400. Fields are removed in place: `input` is the
 * request's own freshly parsed JSON, and copying along each path would cost a body with
 * many unknown fields time quadratic in their number.
 */
export function readTolerantly<Schema extends z.ZodType>(schema: Schema, input: unknown, what = 'request body'): TolerantBody<z.infer<Schema>> {
  const body = input ?? {};
  const unknown: UnknownFields = { topLevel: undefined, nested: [], nestedFields: [] };
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const result = schema.safeParse(body);
    if (result.success) return { body: result.data, unknown };
    const unrecognized = result.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
    if (unrecognized.length === 0) break;
    for (const issue of unrecognized) {
      const holder = valueAt(body, issue.path);
      if (!isPlainRecord(holder)) continue;
      for (const key of issue.keys) {
        // A null-prototype record, so a field named `__proto__` stays a field.
        if (issue.path.length === 0) (unknown.topLevel ??= Object.create(null) as Record<string, unknown>)[key] = holder[key];
        else {
          const name = [...issue.path, key].map(String).join('.');
          unknown.nested.push(name);
          const path = [...issue.path, key].filter((step): step is string | number => typeof step !== 'symbol');
          unknown.nestedFields?.push({ name, path, value: holder[key], match: identifyingFields(holder), applied: false });
        }
        delete holder[key];
      }
    }
  }
  return { body: parseInput(schema, body, what), unknown };
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const step of path) {
    if (Array.isArray(node) && typeof step === 'number') node = node[step];
    else if (isPlainRecord(node) && typeof step === 'string') node = node[step];
    else return undefined;
  }
  return node;
}

/** The `providerOptions` key an adapter of that format reads verbatim into its body. */
const PROVIDER_OPTIONS_KEY: Record<WireFormat, string> = { openai: 'openai', anthropic: 'anthropic', gemini: 'google' };

/**
 * Unknown top-level fields ride in the front-end's own `providerOptions` entry, under the
 * known ones, and nested ones beside them (under a symbol key), so an upstream of the same
 * format receives them as sent and others ignore them.
 */
export function carryUnknownFields(request: Omit<ModelRequest, 'model'>, format: WireFormat, unknown: UnknownFields): void {
  const nested = unknown.nestedFields ?? [];
  if (unknown.topLevel === undefined && nested.length === 0) return;
  const key = PROVIDER_OPTIONS_KEY[format];
  const options = { ...unknown.topLevel, ...request.providerOptions?.[key] };
  if (nested.length > 0) attachNestedFields(options, nested);
  request.providerOptions = { ...request.providerOptions, [key]: options };
}

/** Bedrock and Cohere speak no front-end's format: fields set aside for one never reach them. Mistral's is OpenAI's. */
function formatOf(kind: ProviderKind): WireFormat | undefined {
  if (kind === 'bedrock' || kind === 'cohere') return undefined;
  return kind === 'openai-compatible' || kind === 'mistral' ? 'openai' : kind;
}

/**
 * The fields the served provider did not receive, named for `x-junction-dropped-params`:
 * all of them when the provider speaks another format (or, `servedBy` undefined, when the
 * call forwards none: embeddings, counts); else the nested ones its adapter could not put
 * back in place.
 */
export function droppedParams(format: WireFormat, servedBy: ProviderKind | undefined, unknown: UnknownFields): string[] {
  const forwarded = servedBy !== undefined && formatOf(servedBy) === format;
  const topLevel = unknown.topLevel === undefined || forwarded ? [] : Object.keys(unknown.topLevel);
  const placed = forwarded ? new Set((unknown.nestedFields ?? []).flatMap((field) => (field.applied ? [field.name] : []))) : undefined;
  return [...topLevel, ...(placed ? unknown.nested.filter((name) => !placed.has(name)) : unknown.nested)];
}

/** encodeURIComponent throws on these; a JSON key (or a cut one) can hold them. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Names past this many are counted, not listed: the header stays small whatever the body. */
const MAX_NAMED = 32;

/**
 * `{ 'x-junction-dropped-params': 'thread, tools.0.eager_input_streaming' }`, or nothing
 * when every field went through. Names are the caller's text, so they are percent-encoded
 * beyond a safe set: a header value cannot carry every character a JSON key can.
 */
export function droppedParamsHeaders(format: WireFormat, servedBy: ProviderKind | undefined, unknown: UnknownFields): Record<string, string> {
  const dropped = droppedParams(format, servedBy, unknown);
  if (dropped.length === 0) return {};
  const named = dropped.slice(0, MAX_NAMED).map((name) => encodeURIComponent(name.slice(0, 200).replace(LONE_SURROGATE, '\ufffd')));
  const more = dropped.length > MAX_NAMED ? [`(${dropped.length - MAX_NAMED} more)`] : [];
  return { [DROPPED_PARAMS_HEADER]: [...named, ...more].join(', ') };
}
