import type { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { syncThroughToDisk, type NodefsSync } from './nodefs-fsync.ts';
import { answerMissingFilesCheaply, type NodefsLookup } from './nodefs-missing-files.ts';
import { keepNodefsPrivate, type NodefsModes } from './nodefs-private-modes.ts';
import type { PageCache } from './page-cache.ts';
import { cacheNodefsPages, type Nodefs } from './pglite-page-cache-fs.ts';
import type { StoreDurabilityCounters } from './store-durability-counters.ts';

type EmscriptenModule = {
  FS: { filesystems: { NODEFS: Nodefs & NodefsLookup<unknown> & NodefsSync & NodefsModes }; ErrnoError: new (errno: number) => unknown };
};

/**
 * PGlite's NodeFS (the store in a data folder), with Emscripten's NODEFS under it changed
 * in four ways once it is mounted: files and folders are created owner-only
 * (nodefs-private-modes.ts), an fsync reaches the disk (nodefs-fsync.ts), missing files
 * are answered without an exception from Node (nodefs-missing-files.ts), and, when a
 * cache is given, page reads go through it (pglite-page-cache-fs.ts).
 */
export class StoreNodeFS extends NodeFS {
  readonly #cache: PageCache | undefined;
  readonly #counters: StoreDurabilityCounters | undefined;

  constructor(dataDir: string, cache: PageCache | undefined, counters?: StoreDurabilityCounters) {
    super(dataDir);
    this.#cache = cache;
    this.#counters = counters;
  }

  override async init(pg: PGlite, options: Parameters<NodeFS['init']>[1]): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(pg, options);
    const tuneNodefs = (module: EmscriptenModule) => {
      const nodefs = module.FS.filesystems.NODEFS;
      keepNodefsPrivate(nodefs);
      syncThroughToDisk(nodefs, this.#counters);
      answerMissingFilesCheaply(nodefs, module.FS.ErrnoError);
      if (this.#cache !== undefined) cacheNodefsPages(nodefs, this.#cache);
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), tuneNodefs] } };
  }
}
