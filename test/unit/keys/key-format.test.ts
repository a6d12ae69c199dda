import { describe, expect, it } from 'vitest';
import { generateKey, parseKey } from '../../../src/keys/key-format.ts';
import { KeyHasher } from '../../../src/keys/key-hash.ts';

describe('key format', () => {
  it.each([
    ['model', /^sk-jn-[0-9A-Za-z]{55}$/],
    ['provisioning', /^pk-jn-[0-9A-Za-z]{55}$/],
    ['agent', /^sk-[0-9A-Za-z]{55}$/],
  ] as const)('%s keys have their prefix and parse back to their kind', (kind, pattern) => {
    const key = generateKey(kind);
    expect(key.plain).toMatch(pattern);
    expect(parseKey(key.plain)).toEqual({ kind, lookupId: key.lookupId, secret: key.secret });
    expect(key.label).toBe(`${key.plain.slice(0, key.plain.length - 55)}${key.lookupId.slice(0, 3)}…${key.secret.slice(-3)}`);
  });

  it('never produces the same key twice and spreads characters evenly', () => {
    const keys = Array.from({ length: 2000 }, () => generateKey('model'));
    expect(new Set(keys.map((key) => key.plain)).size).toBe(2000);
    // Each of the 62 characters appears in the first lookup position about 1/62 of the time.
    const firsts = new Map<string, number>();
    for (const key of keys) firsts.set(key.lookupId[0] ?? '', (firsts.get(key.lookupId[0] ?? '') ?? 0) + 1);
    expect(firsts.size).toBeGreaterThan(55);
  });

  it('rejects anything that is not exactly a key', () => {
    const key = generateKey('model').plain;
    for (const bad of ['', 'sk-jn-', key.slice(0, -1), `${key}x`, key.replace('sk-jn-', 'sk_jn_'), `${key.slice(0, -1)}!`, 'Bearer x']) {
      expect(parseKey(bad)).toBeUndefined();
    }
  });

  it('hashes with the configured secret and compares in constant time', () => {
    const key = generateKey('agent');
    const hasher = new KeyHasher('secret-a');
    const stored = hasher.hash(key.secret);
    expect(hasher.matches(key.secret, stored)).toBe(true);
    const oneCharacterOff = `${key.secret.slice(0, -1)}${key.secret.endsWith('x') ? 'y' : 'x'}`;
    expect(hasher.matches(oneCharacterOff, stored)).toBe(false);
    expect(new KeyHasher('secret-b').matches(key.secret, stored)).toBe(false);
    expect(hasher.matches(key.secret, stored.subarray(0, 16))).toBe(false);
  });
});
