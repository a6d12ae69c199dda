import { describe, expect, it } from 'vitest';
import { type FlatValue, scanFlatMembers } from '../../../../src/providers/openai/flat-json-members.ts';
import { seededRandom } from '../../../support/generated-requests.ts';

/** The members `scanFlatMembers` visits in `{…}`'s inside, or undefined when it declines. */
function scan(object: string): Array<[string, FlatValue]> | undefined {
  const members: Array<[string, FlatValue]> = [];
  return scanFlatMembers(object, 1, object.length - 1, (key, value) => members.push([key, value]) > 0) ? members : undefined;
}

describe('scanFlatMembers', () => {
  it('reads the usual flat members, and declines every other shape', () => {
    expect(scan('{}')).toEqual([]);
    expect(scan('{"id":"chatcmpl-1","created":1769092764,"x":null,"n":-1.5e3}')).toEqual([
      ['id', 'chatcmpl-1'],
      ['created', 1769092764],
      ['x', null],
      ['n', -1500],
    ]);
    for (const declined of [
      '{"a":"b\\"c"}',
      '{"a\\u0041":1}',
      '{"a": 1}',
      '{"a":true}',
      '{"a":{}}',
      '{"a":[1]}',
      '{"a":01}',
      '{"a":1.}',
      '{"a":1,}',
      '{"a":nul}',
      '{"a":"\u0001"}',
      '{a:1}',
      '{"a":1 }',
    ]) {
      expect(scan(declined), declined).toBeUndefined();
    }
  });

  it('stops when its visitor says no', () => {
    let visited = 0;
    expect(scanFlatMembers('{"a":1,"b":2}', 1, 12, () => ++visited < 1)).toBe(false);
    expect(visited).toBe(1);
  });

  it('reads only JSON, and what JSON.parse reads from it, over generated objects', () => {
    const rng = seededRandom(18);
    let read = 0;
    for (let index = 0; index < 6_000; index += 1) {
      const key = () => rng.pick(['"id"', '"model"', '"a b"', '"é"', '"q\\"k"', '""', 'x', '"__proto__"']);
      const value = () => rng.pick(['"v"', '""', '"☕ x"', '"a\\nb"', '0', '-0', '12', '1.25', '1e-3', '-', '01', '1.', 'null', 'nul', 'true', '{}', '[]', '"open']);
      const separator = () => (rng.next() < 0.95 ? ',' : rng.pick([' ,', ',,', ';']));
      const members = Array.from({ length: Math.floor(rng.next() * 4) }, () => `${key()}${rng.next() < 0.97 ? ':' : ' :'}${value()}`);
      const object = `{${members.join(separator())}}`;
      const found = scan(object);
      if (found === undefined) continue;
      read += 1;
      const parsed = JSON.parse(object) as Record<string, unknown>;
      expect(Object.fromEntries(found), object).toEqual({ ...parsed });
      expect(found.length, object).toBe(members.length);
    }
    expect(read).toBeGreaterThan(500);
  });
});
