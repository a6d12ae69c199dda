import { PAGE_BYTES, type PageCache } from './page-cache.ts';

/*
 * The parts of Emscripten's file system (NODEFS, which PGlite's NodeFS mounts) that touch
 * file contents. Every NODEFS node shares one `stream_ops` and one `node_ops` object, so
 * wrapping their methods covers every file of the store.
 */
type FileNode = { id: number };
type FileStream = { node: FileNode };
type SizeChange = { size?: number };
type StreamOps = {
  read(stream: FileStream, buffer: Int8Array | Uint8Array, offset: number, length: number, position: number): number;
  write(stream: FileStream, buffer: Int8Array | Uint8Array, offset: number, length: number, position: number, canOwn?: boolean): number;
  setattr(stream: FileStream, attr: SizeChange): void;
};
type NodeOps = { setattr(node: FileNode, attr: SizeChange): void };
export type Nodefs = { stream_ops: StreamOps; node_ops: NodeOps };

/**
 * The most pages one read may span to be served from the cache. PostgreSQL reads several
 * neighbouring pages in one call when their buffers lie side by side (a sequential scan's
 * read-ahead, up to io_combine_limit, 128 kB); larger reads go to the file.
 */
const MAX_READ_PAGES = 32;

/** Copies pages `first`… of `file` into `target` if the cache holds every one of them (else the read goes to the file whole: one call). */
function copyCachedPages(cache: PageCache, file: number, first: number, pages: number, target: Uint8Array): boolean {
  for (let page = 0; page < pages; page += 1) {
    if (!cache.has(file, first + page)) {
      cache.stats.misses += pages;
      return false;
    }
  }
  for (let page = 0; page < pages; page += 1) target.set(cache.get(file, first + page) as Uint8Array, page * PAGE_BYTES);
  cache.stats.hits += pages;
  return true;
}

/** Which of pages `first`… (`pages` of them) of `file` the cache holds. */
function heldPages(cache: PageCache, file: number, first: number, pages: number): number[] {
  const held: number[] = [];
  for (let page = first; page < first + pages; page += 1) if (cache.has(file, page)) held.push(page);
  return held;
}

/**
 * Wraps NODEFS's content operations (`nodefs`, one engine's) so page reads go through `cache`.
 *
 * Why: PostgreSQL in WASM reads every page its pool lacks from the file through Node's
 * `fs.readSync`, about 6 µs a page here even when the OS has the file cached, and the pool
 * is kept small (16 MB, unless the store's vector indexes are large: pglite-store-memory.ts)
 * because all of it is resident from the engine's start. A knowledge search among 100k
 * chunks reads about 1,550 such pages with the small pool. The cache holds copies of pages
 * read, growing only as pages are read, so an idle server stays small.
 *
 * Why it cannot serve a stale page: this engine is the only writer of the folder (the
 * folder is locked to one process), and each of its ways to change a file's contents is
 * wrapped here, dropping the pages it touches before the change is made:
 * - a write: the pages it covers (those held are taken back with their new content once
 *   written in full). A write opened for appending lands at the file's end, where no page
 *   is held: pages past a file's end were dropped when it shrank.
 * - a truncation, by path or by open file: every page from the new end on. Opening with
 *   O_TRUNC truncates through the same call.
 * Files are known by their node, which stays with the file through renames; a deleted or
 * replaced file's node is never looked up again, so its pages only wait to be evicted.
 * Only reads of whole, aligned pages are cached; any other read goes to the file.
 */
export function cacheNodefsPages(nodefs: Nodefs, cache: PageCache): void {
  const streamOps = nodefs.stream_ops;
  const nodeOps = nodefs.node_ops;
  const read = streamOps.read.bind(streamOps);
  const write = streamOps.write.bind(streamOps);
  const truncateOpenFile = streamOps.setattr.bind(streamOps);
  const truncateFile = nodeOps.setattr.bind(nodeOps);

  streamOps.read = (stream, buffer, offset, length, position) => {
    const pages = length / PAGE_BYTES;
    if (!Number.isInteger(pages) || pages === 0 || pages > MAX_READ_PAGES || position % PAGE_BYTES !== 0) return read(stream, buffer, offset, length, position);
    const file = stream.node.id;
    const first = position / PAGE_BYTES;
    const target = new Uint8Array(buffer.buffer, buffer.byteOffset + offset, length);
    if (copyCachedPages(cache, file, first, pages, target)) return length;
    const bytes = read(stream, buffer, offset, length, position);
    // Only whole pages are kept: a short read ends at the file's end.
    for (let page = 0; (page + 1) * PAGE_BYTES <= bytes; page += 1) cache.put(file, first + page, target.subarray(page * PAGE_BYTES, (page + 1) * PAGE_BYTES));
    return bytes;
  };

  streamOps.write = (stream, buffer, offset, length, position, canOwn) => {
    if (length === 0) return write(stream, buffer, offset, length, position, canOwn);
    const file = stream.node.id;
    const first = Math.floor(position / PAGE_BYTES);
    // Whole pages the cache held are kept with their new content once written: the engine
    // writes a page back (a checkpoint, hint bits set by a read) after reading it, and
    // would otherwise read it from the file again. Pages it did not hold are not added.
    const rewritten = position % PAGE_BYTES === 0 && length % PAGE_BYTES === 0 ? heldPages(cache, file, first, length / PAGE_BYTES) : [];
    // Dropped before writing: a write that fails halfway leaves no copy of what was there.
    cache.drop(file, first, Math.floor((position + length - 1) / PAGE_BYTES));
    const bytes = write(stream, buffer, offset, length, position, canOwn);
    if (bytes === length && rewritten.length > 0) {
      const source = new Uint8Array(buffer.buffer, buffer.byteOffset + offset, length);
      for (const page of rewritten) cache.put(file, page, source.subarray((page - first) * PAGE_BYTES, (page - first + 1) * PAGE_BYTES));
    }
    return bytes;
  };

  streamOps.setattr = (stream, attr) => {
    if (attr.size !== undefined) cache.dropFrom(stream.node.id, Math.floor(attr.size / PAGE_BYTES));
    truncateOpenFile(stream, attr);
  };

  nodeOps.setattr = (node, attr) => {
    if (attr.size !== undefined) cache.dropFrom(node.id, Math.floor(attr.size / PAGE_BYTES));
    truncateFile(node, attr);
  };
}
