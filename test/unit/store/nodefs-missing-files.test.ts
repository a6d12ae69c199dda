import { lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { answerMissingFilesCheaply, type NodefsLookup } from '../../../src/store/nodefs-missing-files.ts';

/**
 * The lookup of src/store/nodefs-missing-files.ts over a real folder, in front of a NODEFS
 * stand-in whose own lookup records each call: a missing file must fail as NODEFS's would
 * (its ErrnoError, its errno for ENOENT) without reaching it; everything else must reach it.
 */
class ErrnoError {
  constructor(readonly errno: number) {}
}
const ENOENT_ERRNO = 44;
const ENOTDIR_ERRNO = 54;

const folder = mkdtempSync(join(tmpdir(), 'junction-nodefs-lookup-'));
mkdirSync(join(folder, 'base'));
writeFileSync(join(folder, 'base', '16384'), 'x');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

type Directory = { path: string };

const errnoOf = (error: { code?: string }): number => ({ ENOENT: ENOENT_ERRNO, ENOTDIR: ENOTDIR_ERRNO })[error.code ?? ''] ?? 28;

function wrappedNodefs() {
  const calls: string[] = [];
  const nodefs: NodefsLookup<Directory> = {
    node_ops: {
      // NODEFS's own: an lstat that throws, turned into its ErrnoError.
      lookup(parent, name) {
        calls.push(name);
        try {
          return { name, mode: lstatSync(join(parent.path, name)).mode };
        } catch (error) {
          throw new ErrnoError(errnoOf(error as NodeJS.ErrnoException));
        }
      },
    },
    realPath: (node) => node.path,
    convertNodeCode: errnoOf,
  };
  answerMissingFilesCheaply(nodefs, ErrnoError);
  return { lookup: nodefs.node_ops.lookup, calls };
}

const failure = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('the lookup succeeded');
};

describe('looking up files that do not exist', () => {
  it('fails with the ENOENT ErrnoError without reaching NODEFS', () => {
    const { lookup, calls } = wrappedNodefs();
    const error = failure(() => lookup({ path: join(folder, 'base') }, '16384_fsm'));
    expect(error).toBeInstanceOf(ErrnoError);
    expect((error as ErrnoError).errno).toBe(ENOENT_ERRNO);
    expect(calls).toEqual([]);
  });

  it('hands a file that exists to NODEFS', () => {
    const { lookup, calls } = wrappedNodefs();
    expect(lookup({ path: join(folder, 'base') }, '16384')).toMatchObject({ name: '16384' });
    expect(calls).toEqual(['16384']);
  });

  it('finds a file created after a lookup failed (nothing is remembered)', () => {
    const { lookup, calls } = wrappedNodefs();
    const parent = { path: join(folder, 'base') };
    expect((failure(() => lookup(parent, 'later')) as ErrnoError).errno).toBe(ENOENT_ERRNO);
    writeFileSync(join(folder, 'base', 'later'), 'y');
    expect(lookup(parent, 'later')).toMatchObject({ name: 'later' });
    expect(calls).toEqual(['later']);
  });

  it('leaves other failures to NODEFS (a path through a file is not a directory)', () => {
    const { lookup, calls } = wrappedNodefs();
    expect((failure(() => lookup({ path: join(folder, 'base', '16384') }, 'inside')) as ErrnoError).errno).toBe(ENOTDIR_ERRNO);
    expect(calls).toEqual(['inside']);
  });
});
