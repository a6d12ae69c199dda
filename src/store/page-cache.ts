/** PostgreSQL's page size, as PGlite is built (BLCKSZ). */
export const PAGE_BYTES = 8192;
/** Pages per file: PostgreSQL splits a relation into 1 GB files. A page's key is its file's id × this + its number. */
const PAGES_PER_FILE = 131_072;
/** Memory is taken in slabs of this many pages as the cache grows (one allocation per 1 MB, not per page). */
const SLAB_PAGES = 128;

/**
 * Copies of file pages, least recently used evicted first, up to `maxBytes`. Slots live in
 * slabs allocated as the cache fills and reused after evictions: a full cache takes no
 * more memory for pages, and the engine thread's collector has no page buffers to sweep.
 * Files are known by an id (the embedded file system's inode number); what the cache
 * holds for a file must be dropped whenever the file changes (pglite-page-cache-fs.ts).
 */
export class PageCache {
  readonly #maxPages: number;
  /** Page key → slot, in order of use (oldest first). */
  readonly #slotOfPage = new Map<number, number>();
  readonly #slots: Uint8Array[] = [];
  readonly #freeSlots: number[] = [];
  /** Highest page number cached per file: where dropping a truncated file's tail stops. */
  readonly #highestPage = new Map<number, number>();

  /** Pages read from the cache, and pages it could have held that were read from the file (counted by its reader). */
  readonly stats = { hits: 0, misses: 0 };

  constructor(maxBytes: number) {
    this.#maxPages = Math.floor(maxBytes / PAGE_BYTES);
  }

  get enabled(): boolean {
    return this.#maxPages > 0;
  }

  /** Pages held now. */
  get size(): number {
    return this.#slotOfPage.size;
  }

  /** The cached copy of page `page` of file `file`, marked as just used; undefined if not held. */
  get(file: number, page: number): Uint8Array | undefined {
    const key = file * PAGES_PER_FILE + page;
    const slot = this.#slotOfPage.get(key);
    if (slot === undefined) return undefined;
    this.#slotOfPage.delete(key);
    this.#slotOfPage.set(key, slot);
    return this.#slots[slot];
  }

  /** Whether page `page` of file `file` is held (without marking it used). */
  has(file: number, page: number): boolean {
    return this.#slotOfPage.has(file * PAGES_PER_FILE + page);
  }

  /** Keeps a copy of `content` (PAGE_BYTES) as page `page` of file `file`. */
  put(file: number, page: number, content: Uint8Array): void {
    if (this.#maxPages === 0 || page >= PAGES_PER_FILE) return;
    const key = file * PAGES_PER_FILE + page;
    let slot = this.#slotOfPage.get(key);
    if (slot === undefined) slot = this.#freeSlot();
    else this.#slotOfPage.delete(key);
    this.#slots[slot]?.set(content);
    this.#slotOfPage.set(key, slot);
    if (page > (this.#highestPage.get(file) ?? -1)) this.#highestPage.set(file, page);
  }

  /** Forgets pages `first` to `last` of file `file`. */
  drop(file: number, first: number, last: number): void {
    const highest = this.#highestPage.get(file);
    if (highest === undefined) return;
    const end = Math.min(last, highest);
    for (let page = Math.max(first, 0); page <= end; page += 1) {
      const key = file * PAGES_PER_FILE + page;
      const slot = this.#slotOfPage.get(key);
      if (slot === undefined) continue;
      this.#slotOfPage.delete(key);
      this.#freeSlots.push(slot);
    }
    if (first <= 0 && last >= highest) this.#highestPage.delete(file);
  }

  /** Forgets every page of file `file` from `first` on (a truncation). */
  dropFrom(file: number, first: number): void {
    this.drop(file, first, Number.MAX_SAFE_INTEGER);
  }

  #freeSlot(): number {
    const reused = this.#freeSlots.pop();
    if (reused !== undefined) return reused;
    if (this.#slots.length < this.#maxPages) {
      const slab = new Uint8Array(Math.min(SLAB_PAGES, this.#maxPages - this.#slots.length) * PAGE_BYTES);
      const first = this.#slots.length;
      for (let offset = 0; offset < slab.length; offset += PAGE_BYTES) this.#slots.push(slab.subarray(offset, offset + PAGE_BYTES));
      for (let slot = this.#slots.length - 1; slot > first; slot -= 1) this.#freeSlots.push(slot);
      return first;
    }
    // Full: the least recently used page gives up its slot.
    const oldest = this.#slotOfPage.entries().next().value as [number, number];
    this.#slotOfPage.delete(oldest[0]);
    return oldest[1];
  }
}
