import { validateHeaderName, validateHeaderValue } from 'node:http';
import {
  HOSTILE_CONTENT_TYPES,
  HOSTILE_HEADER_NAMES,
  HOSTILE_HEADER_VALUES,
  HOSTILE_JSON_VALUES,
  HOSTILE_KEYS,
  HOSTILE_PATH_SEGMENTS,
  HOSTILE_QUERY_STRINGS,
  HOSTILE_QUERY_VALUES,
  HOSTILE_RAW_BODIES,
  QUERY_NAMES,
} from './hostile-values.ts';
import type { RouteEntry } from './route-inventory.ts';
import { seedBodies, seedParam } from './route-seeds.ts';
import type { Random } from './seeded-random.ts';

export type HostileRequest = {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** What was made hostile, short enough to print in a failure list. */
  description: string;
};

type Mutation = 'path' | 'query' | 'header' | 'body-value' | 'body-key' | 'body-raw' | 'content-type' | 'none';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const VALUE_SENTINEL = 'fuzz-sentinel-value-7f3a';
const KEY_SENTINEL = 'fuzz-sentinel-key-7f3a';
const PARAMETER = /:([A-Za-z0-9_]+)|\*/g;

/** Header names and values a real client can put on the wire (the rest never reach a server). */
const SENDABLE_HEADER_VALUES = HOSTILE_HEADER_VALUES.filter((value) => sendable('x-fuzz', value));

/**
 * One hostile request for a route: a seed request with one thing made hostile (a path
 * parameter, the query, a header, one body field or key, the whole body, its type),
 * sent with the given credential headers.
 */
export function hostileRequest(route: RouteEntry, credential: Record<string, string>, random: Random): HostileRequest {
  const parameters = [...route.path.matchAll(PARAMETER)].map((match) => match[1] ?? '*');
  const takesBody = BODY_METHODS.has(route.method) || (route.method === 'DELETE' && random.chance(0.2));
  const mutation = pickMutation(random, parameters.length > 0, takesBody);
  const target = parameters.length > 0 ? random.pick(parameters) : undefined;
  let description: string = mutation;

  const url = route.path.replace(PARAMETER, (_match, name: string | undefined) => {
    const parameter = name ?? '*';
    if (mutation === 'path' && parameter === target) {
      const segment = random.pick(HOSTILE_PATH_SEGMENTS);
      description = `path ${parameter}=${short(segment)}`;
      return segment;
    }
    return random.pick(seedParam(route.path, parameter));
  });

  let query = '';
  if (mutation === 'query') {
    if (random.chance(0.3)) query = random.pick(HOSTILE_QUERY_STRINGS);
    else query = Array.from({ length: 1 + random.integer(2) }, () => `${random.pick(QUERY_NAMES)}=${random.pick(HOSTILE_QUERY_VALUES)}`).join('&');
    description = `query ${short(query)}`;
  }

  const headers: Record<string, string> = { ...credential };
  let payload: string | Buffer | undefined;
  if (takesBody) {
    headers['content-type'] = 'application/json';
    const seed = random.pick(seedBodies(route.method, route.path));
    payload = JSON.stringify(seed);
    if (mutation === 'body-value') {
      const value = random.pick(HOSTILE_JSON_VALUES);
      const path = random.pick(nodePaths(seed));
      payload = replaceAt(seed, path, value);
      description = `body ${path.join('.') || '(root)'}=${short(value)}`;
    } else if (mutation === 'body-key') {
      const key = random.pick(HOSTILE_KEYS);
      const value = random.chance(0.5) ? '"x"' : random.pick(HOSTILE_JSON_VALUES);
      const path = random.pick(objectPaths(seed));
      payload = addKeyAt(seed, path, key, value);
      description = `body key ${path.join('.') || '(root)'}[${short(key)}]=${short(value)}`;
    } else if (mutation === 'body-raw') {
      payload = random.pick(HOSTILE_RAW_BODIES);
      if (random.chance(0.4)) headers['content-type'] = random.pick(HOSTILE_CONTENT_TYPES);
      description = `raw body ${short(payload)} as ${headers['content-type']}`;
    } else if (mutation === 'content-type') {
      headers['content-type'] = random.pick(HOSTILE_CONTENT_TYPES);
      if (random.chance(0.3)) delete headers['content-type'];
      description = `content-type ${headers['content-type'] ?? '(none)'}`;
    }
  }

  if (mutation === 'header') {
    const name = random.pick(HOSTILE_HEADER_NAMES);
    const value = random.pick(SENDABLE_HEADER_VALUES);
    headers[name] = value;
    description = `header ${name}: ${short(value)}`;
  }

  return { method: route.method, url: query ? `${url}?${query}` : url, headers, ...(payload !== undefined && { payload }), description };
}

function pickMutation(random: Random, hasParameters: boolean, takesBody: boolean): Mutation {
  const choices: Mutation[] = ['query', 'header', 'none'];
  if (hasParameters) choices.push('path', 'path');
  if (takesBody) choices.push('body-value', 'body-value', 'body-value', 'body-key', 'body-raw', 'content-type');
  return random.pick(choices);
}

type Path = readonly (string | number)[];

/** Every node of a JSON value (the root included), by path. */
function nodePaths(value: unknown, path: Path = []): Path[] {
  const paths: Path[] = [path];
  if (Array.isArray(value)) value.forEach((inner, index) => paths.push(...nodePaths(inner, [...path, index])));
  else if (value !== null && typeof value === 'object') for (const [key, inner] of Object.entries(value)) paths.push(...nodePaths(inner, [...path, key]));
  return paths;
}

function objectPaths(value: unknown): Path[] {
  return nodePaths(value).filter((path) => {
    const node = path.reduce<unknown>((current, key) => (current as Record<string | number, unknown>)[key], value);
    return node !== null && typeof node === 'object' && !Array.isArray(node);
  });
}

/** The seed as JSON text with the node at `path` replaced by raw JSON text. */
function replaceAt(seed: unknown, path: Path, rawJson: string): string {
  if (path.length === 0) return rawJson;
  const copy = structuredClone(seed);
  setAt(copy, path, VALUE_SENTINEL);
  return JSON.stringify(copy).replace(`"${VALUE_SENTINEL}"`, () => rawJson);
}

function addKeyAt(seed: unknown, path: Path, rawKey: string, rawJson: string): string {
  const copy = structuredClone(seed);
  setAt(copy, [...path, KEY_SENTINEL], VALUE_SENTINEL);
  return JSON.stringify(copy).replace(`"${KEY_SENTINEL}":"${VALUE_SENTINEL}"`, () => `"${rawKey}":${rawJson}`);
}

function setAt(root: unknown, path: Path, value: unknown): void {
  const parent = path.slice(0, -1).reduce<unknown>((current, key) => (current as Record<string | number, unknown>)[key], root);
  (parent as Record<string | number, unknown>)[path.at(-1) as string | number] = value;
}

function sendable(name: string, value: string): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}

/** A hostile value as it can be printed: escaped, and cut to a readable length. */
export function short(value: string | Buffer): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : `<${value.length} bytes ${value.subarray(0, 12).toString('hex')}>`;
  return text.length > 80 ? `${text.slice(0, 60)}…(${text.length} chars)` : text;
}
