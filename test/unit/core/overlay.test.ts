import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { overlay } from '../../../src/core/overlay.ts';

describe('overlay', () => {
  it('is the base with the changes on top, and leaves the base as it was', () => {
    const base = { key: 'k', endpoint: 'chat.completions', signal: 'a' };
    const result = overlay(base, { endpoint: 'agents.tool', extra: 1 });
    expect(result).toEqual({ key: 'k', endpoint: 'agents.tool', signal: 'a', extra: 1 });
    expect(base).toEqual({ key: 'k', endpoint: 'chat.completions', signal: 'a' });
    expect(result).not.toBe(base);
  });

  it('gives objects built the same way one hidden class (what it exists for)', () => {
    // V8's own check, in a process that allows it: overlays of same-shaped objects share a
    // map, so reads of them stay in V8's inline caches.
    const script = `
      import { overlay } from './src/core/overlay.ts';
      const make = (i) => overlay({ id: i, name: 'n' + i }, { score: i / 2 });
      const objects = Array.from({ length: 2000 }, (_, i) => make(i));
      process.stdout.write(String(%HaveSameMap(objects[1998], objects[1999])));
    `;
    const output = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(output).toBe('true');
  });
});
