import { randomInt } from 'node:crypto';

import type { KeyKind } from './key-kind.ts';

/** Kept for callers that import the kind beside the format; it is defined in key-kind.ts. */
export type { KeyKind };

/**
 * Plain keys are `<prefix><lookup id><secret>`: a 12-character public lookup id that
 * finds the row, then 43 base62 characters carrying 256 random bits that only ever
 * exist hashed. Agent keys use `sk-` with no dash after it, so they never look like
 * model keys (`sk-jn-`).
 */
const PREFIX: Record<KeyKind, string> = { model: 'sk-jn-', provisioning: 'pk-jn-', agent: 'sk-' };
/** Prefixes in the order they are tried: 'sk-jn-' before the shorter 'sk-'. */
const KIND_PREFIXES: ReadonlyArray<readonly [string, KeyKind]> = [
  ['sk-jn-', 'model'],
  ['pk-jn-', 'provisioning'],
  ['sk-', 'agent'],
];
const LOOKUP_LENGTH = 12;
const SECRET_LENGTH = 43;
const BODY_PATTERN = new RegExp(`^[0-9A-Za-z]{${LOOKUP_LENGTH + SECRET_LENGTH}}$`);
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` uniformly random base62 characters (log2(62) ≈ 5.954 bits each). */
function randomBase62(length: number): string {
  let text = '';
  for (let index = 0; index < length; index += 1) text += BASE62[randomInt(62)];
  return text;
}

export type GeneratedKey = { plain: string; lookupId: string; secret: string; label: string };

export function generateKey(kind: KeyKind): GeneratedKey {
  // 12 characters ≈ 71 bits of lookup id; 43 characters ≈ 256.03 bits of secret.
  const lookupId = randomBase62(LOOKUP_LENGTH);
  const secret = randomBase62(SECRET_LENGTH);
  const plain = `${PREFIX[kind]}${lookupId}${secret}`;
  return { plain, lookupId, secret, label: displayLabel(kind, lookupId, secret) };
}

/** `sk-jn-3fA…9xQ`: enough to recognise a key in a list, nothing to guess it from. */
export const displayLabel = (kind: KeyKind, lookupId: string, secret: string): string => `${PREFIX[kind]}${lookupId.slice(0, 3)}…${secret.slice(-3)}`;

export type ParsedKey = { kind: KeyKind; lookupId: string; secret: string };

export function parseKey(plain: string): ParsedKey | undefined {
  const kind: KeyKind | undefined = KIND_PREFIXES.find(([prefix]) => plain.startsWith(prefix))?.[1];
  if (!kind) return undefined;
  const body = plain.slice(PREFIX[kind].length);
  if (!BODY_PATTERN.test(body)) return undefined;
  return { kind, lookupId: body.slice(0, LOOKUP_LENGTH), secret: body.slice(LOOKUP_LENGTH) };
}
