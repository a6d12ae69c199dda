import { createHash } from 'node:crypto';
import type { CatalogModel } from '../catalog/types.ts';
import type { ModelRequest } from '../core/model-types.ts';
import { nestedFieldsIn } from '../providers/nested-fields.ts';

/**
 * Provider options that never change an answer (who asked, how usage is reported, labels
 * for the provider's dashboards): two requests differing only in them share an entry.
 */
const IGNORED_OPTIONS = new Set(['user', 'metadata', 'stream_options', 'cache']);

/**
 * The response cache's key of a call: SHA-256 of its canonical request (the catalog ids of
 * the models that may serve it, then messages, tools, sampling parameters, response format
 * and the provider options that reach an upstream), written with keys in sorted order so
 * the same request is the same text whichever front-end built it. The caller's `user`
 * is left out: it labels a request, it does not change the answer.
 */
export function responseCacheKey(candidates: readonly CatalogModel[], request: Omit<ModelRequest, 'model'>): string {
  const { user: _user, providerOptions, ...rest } = request;
  const canonical = { models: candidates.map((model) => model.id), request: rest, options: canonicalOptions(providerOptions) };
  return createHash('sha256').update(stableJson(canonical)).digest('hex');
}

/** Each provider's options without the ignored fields, with the nested unknown fields the front-end set aside (symbol-keyed, so JSON would skip them). */
export function canonicalOptions(options: ModelRequest['providerOptions']): Record<string, unknown> | undefined {
  if (!options) return undefined;
  const result: Record<string, unknown> = {};
  for (const [provider, fields] of Object.entries(options)) {
    const kept: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(fields)) if (!IGNORED_OPTIONS.has(name)) kept[name] = value;
    const nested = nestedFieldsIn(fields);
    if (nested && nested.length > 0) kept['[nested]'] = nested.map((field) => [field.name, field.value]);
    result[provider] = kept;
  }
  return result;
}

/** JSON with every object's keys sorted and undefined members left out. */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : stableJson(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined) continue;
    members.push(`${JSON.stringify(key)}:${stableJson(member)}`);
  }
  return `{${members.join(',')}}`;
}
