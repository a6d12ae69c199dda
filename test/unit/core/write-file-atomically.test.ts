import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomically } from '../../../src/core/write-file-atomically.ts';

const folder = mkdtempSync(join(tmpdir(), 'junction-atomic-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('writeFileAtomically', () => {
  it('writes the content with the mode asked for, leaving nothing beside it', async () => {
    const file = join(folder, 'one.json');
    await writeFileAtomically(file, '{"a":1}', { mode: 0o600 });
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(folder)).toEqual(['one.json']);
  });

  it('writes the same when asked to put the content on the disk before resolving', async () => {
    const file = join(folder, 'durable.json');
    await writeFileAtomically(file, '{"b":2}', { mode: 0o600 });
    await writeFileAtomically(file, '{"b":3}', { mode: 0o600, durable: true });
    expect(readFileSync(file, 'utf8')).toBe('{"b":3}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(folder).filter((name) => name.startsWith('durable'))).toEqual(['durable.json']);
  });

  it('leaves one whole content when two writes race', async () => {
    const file = join(folder, 'raced.bin');
    const first = new Uint8Array(1 << 20).fill(1);
    const second = new Uint8Array(1 << 20).fill(2);
    await Promise.all([writeFileAtomically(file, first), writeFileAtomically(file, second)]);
    const written = readFileSync(file);
    expect(written.length).toBe(1 << 20);
    expect(new Set(written).size).toBe(1);
    expect(readdirSync(folder).filter((name) => name.startsWith('raced'))).toEqual(['raced.bin']);
  });

  it('throws and removes its temporary file when the rename fails', async () => {
    const taken = join(folder, 'a-folder');
    mkdirSync(join(taken, 'inside'), { recursive: true });
    await expect(writeFileAtomically(taken, 'x')).rejects.toThrow();
    expect(readdirSync(folder).filter((name) => name.startsWith('a-folder'))).toEqual(['a-folder']);
  });
});
