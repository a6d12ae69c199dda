/** Group and other permission bits: none of them on a store's files. */
const SHARED_BITS = 0o077;

/** A mode with its group and other bits cleared; the file type bits and the owner's stay. */
export const privateMode = (mode: number): number => mode & ~SHARED_BITS;

type ModeChange = { mode?: number | undefined };
type NodeOps<Node> = {
  mknod(parent: Node, name: string, mode: number, dev: number): Node;
  setattr(node: Node, attr: ModeChange): void;
};
type StreamOps<Stream> = { setattr(stream: Stream, attr: ModeChange): void };
/** The parts of Emscripten's NODEFS that give a file its mode. Every NODEFS node shares one `node_ops` and one `stream_ops`. */
export type NodefsModes<Node = unknown, Stream = unknown> = { node_ops: NodeOps<Node>; stream_ops: StreamOps<Stream> };

/**
 * Makes every file and folder the engine creates in the store owner-only (0600 and 0700).
 * Emscripten gives new files 0666 and chmods them to the modes an unpacked tar names
 * (0666 again, with no umask applied to a chmod), so a store made from the template left
 * nearly all its files, pg_hba.conf included, readable and writable by every local user.
 */
export function keepNodefsPrivate<Node, Stream>(nodefs: NodefsModes<Node, Stream>): void {
  const nodeOps = nodefs.node_ops;
  const streamOps = nodefs.stream_ops;
  const mknod = nodeOps.mknod.bind(nodeOps);
  const setNodeAttr = nodeOps.setattr.bind(nodeOps);
  const setStreamAttr = streamOps.setattr.bind(streamOps);
  const masked = (attr: ModeChange): ModeChange => (attr.mode === undefined || attr.mode === null ? attr : { ...attr, mode: privateMode(attr.mode) });

  nodeOps.mknod = (parent, name, mode, dev) => mknod(parent, name, privateMode(mode), dev);
  nodeOps.setattr = (node, attr) => setNodeAttr(node, masked(attr));
  streamOps.setattr = (stream, attr) => setStreamAttr(stream, masked(attr));
}
