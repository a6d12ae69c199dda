import { lstatSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of Emscripten's NODEFS a lookup uses. Every node NODEFS makes shares its `node_ops`, so one wrapped method there covers every file. */
export type NodefsLookup<DirectoryNode> = {
  node_ops: { lookup(parent: DirectoryNode, name: string): unknown };
  /** The host path of a node. */
  realPath(node: DirectoryNode): string;
  /** Node's error code (`ENOENT`) → the engine's errno. */
  convertNodeCode(error: { code: string }): number;
};

/**
 * Makes a lookup of a file that does not exist cheap: NODEFS asks Node with a throwing
 * `fs.lstatSync`, and Node builds an Error with a stack trace for every missing file.
 *
 * Why it matters: PostgreSQL checks for a relation's free-space map file each time it looks
 * for free space in that relation, and a b-tree index that has never had a page deleted has
 * no such file. Under the gateway's load the page splits of the usage log's indexes asked
 * for one about 80 times a second, and those failed lookups were 7% of the engine thread's
 * busy time in CPU profiles (5% with this). `lstatSync(…, { throwIfNoEntry: false })` answers a
 * missing file without building an error; the lookup then fails as NODEFS's own does (the
 * same ErrnoError, ENOENT). Anything else (a file that exists, any other error) goes to
 * NODEFS's lookup unchanged. Nothing is remembered: a file created later is found.
 */
export function answerMissingFilesCheaply<DirectoryNode>(nodefs: NodefsLookup<DirectoryNode>, ErrnoError: new (errno: number) => unknown): void {
  const nodeOps = nodefs.node_ops;
  const lookup = nodeOps.lookup.bind(nodeOps);
  const noSuchFile = nodefs.convertNodeCode({ code: 'ENOENT' });
  nodeOps.lookup = (parent, name) => {
    let missing = false;
    try {
      missing = lstatSync(join(nodefs.realPath(parent), name), { throwIfNoEntry: false }) === undefined;
    } catch {
      // Any other failure (not a directory, no permission): NODEFS's lookup reports it as it would.
    }
    if (missing) throw new ErrnoError(noSuchFile);
    return lookup(parent, name);
  };
}
