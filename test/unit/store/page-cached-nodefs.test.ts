import { describe, expect, it } from 'vitest';
import { PAGE_BYTES, PageCache } from '../../../src/store/page-cache.ts';
import { cacheNodefsPages, type Nodefs } from '../../../src/store/pglite-page-cache-fs.ts';

/**
 * The wrapping of NODEFS's content operations (src/store/pglite-page-cache-fs.ts), on a
 * file system kept in arrays that behaves as NODEFS does over real files: reads return
 * what the file holds (short at its end), writes change it, truncation shrinks or grows
 * it with zeros. Whatever sequence of operations, a read through the cache must return
 * exactly what the file holds. (The store test runs the real engine over it.)
 */
type File = { id: number; bytes: Uint8Array };
type Stream = { node: { id: number }; flags?: number };

const O_APPEND = 1024;

function arrayFiles() {
  const files = new Map<number, File>();
  const file = (id: number) => {
    let found = files.get(id);
    if (!found) files.set(id, (found = { id, bytes: new Uint8Array(0) }));
    return found;
  };
  const resize = (target: File, size: number) => {
    const bytes = new Uint8Array(size);
    bytes.set(target.bytes.subarray(0, Math.min(size, target.bytes.length)));
    target.bytes = bytes;
  };
  const counts = { reads: 0 };
  const nodefs: Nodefs = {
    stream_ops: {
      read(stream, buffer, offset, length, position) {
        counts.reads += 1;
        const source = file(stream.node.id).bytes;
        const bytes = Math.max(0, Math.min(length, source.length - position));
        new Uint8Array(buffer.buffer, buffer.byteOffset + offset, bytes).set(source.subarray(position, position + bytes));
        return bytes;
      },
      write(stream, buffer, offset, length, position) {
        const target = file(stream.node.id);
        const at = ((stream as Stream).flags ?? 0) & O_APPEND ? target.bytes.length : position;
        if (at + length > target.bytes.length) resize(target, at + length);
        target.bytes.set(new Uint8Array(buffer.buffer, buffer.byteOffset + offset, length), at);
        return length;
      },
      setattr(stream, attr) {
        if (attr.size !== undefined) resize(file(stream.node.id), attr.size);
      },
    },
    node_ops: {
      setattr(node, attr) {
        if (attr.size !== undefined) resize(file(node.id), attr.size);
      },
    },
  };
  return { nodefs, file, counts };
}

/** What a read of `pages` pages from `page` on returns through the wrapped operations. */
function readPages(nodefs: Nodefs, stream: Stream, page: number, pages = 1): { bytes: number; content: Uint8Array } {
  const heap = new Int8Array(4 * PAGE_BYTES * 8);
  const offset = PAGE_BYTES; // somewhere inside a larger memory, as the engine's heap is
  const bytes = nodefs.stream_ops.read(stream, heap, offset, pages * PAGE_BYTES, page * PAGE_BYTES);
  return { bytes, content: new Uint8Array(heap.buffer, offset, bytes).slice() };
}

function writePages(nodefs: Nodefs, stream: Stream, page: number, fill: number, pages = 1): void {
  const source = new Uint8Array(pages * PAGE_BYTES).fill(fill);
  nodefs.stream_ops.write(stream, source, 0, source.length, page * PAGE_BYTES);
}

const filled = (fill: number, pages = 1) => new Uint8Array(pages * PAGE_BYTES).fill(fill);
/** Equality of two byte arrays as one boolean (vitest's deep equality walks them element by element). */
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

describe('page reads through the cache', () => {
  const setup = (cacheBytes = 64 * PAGE_BYTES) => {
    const files = arrayFiles();
    const cache = new PageCache(cacheBytes);
    cacheNodefsPages(files.nodefs, cache);
    const stream: Stream = { node: { id: 1 }, flags: 0 };
    return { ...files, cache, stream };
  };

  it('reads a page from the file once, then from memory', () => {
    const { nodefs, stream, counts, cache } = setup();
    writePages(nodefs, stream, 0, 5, 4);
    expect(same(readPages(nodefs, stream, 2).content, filled(5))).toBe(true);
    expect(same(readPages(nodefs, stream, 2).content, filled(5))).toBe(true);
    expect(counts.reads).toBe(1);
    expect(cache.stats).toEqual({ hits: 1, misses: 1 });
  });

  it('serves a read of several pages from memory only when it holds all of them', () => {
    const { nodefs, stream, counts } = setup();
    writePages(nodefs, stream, 0, 1, 8);
    readPages(nodefs, stream, 0, 2);
    expect(counts.reads).toBe(1);
    expect(same(readPages(nodefs, stream, 1, 2).content, filled(1, 2))).toBe(true); // page 2 is not held: one read of both
    expect(counts.reads).toBe(2);
    expect(same(readPages(nodefs, stream, 0, 3).content, filled(1, 3))).toBe(true);
    expect(counts.reads).toBe(2);
  });

  it('returns what a write put in the file, for a page held and for one written in part', () => {
    const { nodefs, stream } = setup();
    writePages(nodefs, stream, 0, 1, 3);
    readPages(nodefs, stream, 0, 3);
    writePages(nodefs, stream, 1, 9);
    expect(same(readPages(nodefs, stream, 1).content, filled(9))).toBe(true);
    // 100 bytes across the boundary of pages 1 and 2.
    nodefs.stream_ops.write(stream, new Uint8Array(100).fill(4), 0, 100, 2 * PAGE_BYTES - 50);
    const both = readPages(nodefs, stream, 1, 2).content;
    expect([both[0], both[PAGE_BYTES - 51], both[PAGE_BYTES - 50], both[PAGE_BYTES + 49], both[PAGE_BYTES + 50]]).toEqual([9, 9, 4, 4, 1]);
  });

  it('returns what an appending write added, whatever position it was given', () => {
    const { nodefs, file, stream } = setup();
    writePages(nodefs, stream, 0, 1, 2);
    nodefs.stream_ops.setattr(stream, { size: PAGE_BYTES });
    readPages(nodefs, stream, 0);
    const appending: Stream = { node: { id: 1 }, flags: O_APPEND };
    nodefs.stream_ops.write(appending, filled(6), 0, PAGE_BYTES, 0);
    expect(file(1).bytes.length).toBe(2 * PAGE_BYTES);
    expect(same(readPages(nodefs, stream, 0, 2).content, new Uint8Array([...filled(1), ...filled(6)]))).toBe(true);
  });

  it('returns zeros for pages a truncation removed and a later one brought back, by open file or by path', () => {
    const { nodefs, stream } = setup();
    writePages(nodefs, stream, 0, 3, 4);
    readPages(nodefs, stream, 0, 4);
    nodefs.stream_ops.setattr(stream, { size: PAGE_BYTES + 10 });
    nodefs.node_ops.setattr(stream.node, { size: 4 * PAGE_BYTES });
    const after = readPages(nodefs, stream, 0, 4).content;
    expect([after[0], after[PAGE_BYTES + 9], after[PAGE_BYTES + 10], after[3 * PAGE_BYTES]]).toEqual([3, 3, 0, 0]);
    nodefs.node_ops.setattr(stream.node, { size: 0 });
    expect(readPages(nodefs, stream, 0).bytes).toBe(0);
  });

  it('keeps no partial page: a short read at the file’s end is read again next time', () => {
    const { nodefs, stream, counts } = setup();
    nodefs.stream_ops.write(stream, new Uint8Array(PAGE_BYTES + 100).fill(2), 0, PAGE_BYTES + 100, 0);
    expect(readPages(nodefs, stream, 1).bytes).toBe(100);
    expect(readPages(nodefs, stream, 1).bytes).toBe(100);
    expect(counts.reads).toBe(2);
  });

  it('stays exact through a long random mix of reads, writes and truncations with a small cache', () => {
    const { nodefs, file, stream } = setup(6 * PAGE_BYTES);
    let seed = 7;
    const next = (limit: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % limit;
    };
    const other: Stream = { node: { id: 2 }, flags: 0 };
    for (let step = 0; step < 3000; step += 1) {
      const target = next(3) === 0 ? other : stream;
      const operation = next(10);
      if (operation < 5) {
        const page = next(12);
        const pages = 1 + next(3);
        const { bytes, content } = readPages(nodefs, target, page, pages);
        const truth = file(target.node.id).bytes.subarray(page * PAGE_BYTES, page * PAGE_BYTES + pages * PAGE_BYTES);
        // Compared as buffers: a deep equality of 24 KB arrays, 1,500 times, takes a minute.
        if (bytes !== truth.length || !same(content, truth)) throw new Error(`step ${step}: pages ${page}-${page + pages - 1} of file ${target.node.id} differ from the file`);
      } else if (operation < 8) {
        writePages(nodefs, target, next(12), next(256), 1 + next(2));
      } else if (operation < 9) {
        const size = next(12 * PAGE_BYTES);
        nodefs.stream_ops.write(target, new Uint8Array(300).fill(next(256)), 0, 300, size);
      } else {
        nodefs.stream_ops.setattr(target, { size: next(14 * PAGE_BYTES) });
      }
    }
  });
});
