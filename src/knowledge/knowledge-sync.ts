import type { Database } from '../store/database.ts';
import { type FolderWatcher, watchFolders } from '../tools/folder-watcher.ts';
import { type DocumentExtractor, sharedDocumentExtractor } from './document-extractor.ts';
import type { Embedder } from './embedder.ts';
import { type IndexProgress, type IndexReport, indexKnowledge } from './knowledge-indexer.ts';

export type KnowledgeSyncOptions = {
  db: Database;
  knowledgeDir: string;
  /** The embedder that bills this account, or undefined for full text only. */
  embedderFor(accountId: string): Embedder | undefined;
  /** Failed syncs, and folder files that could not be extracted (skipped, the rest indexed). */
  onError(error: Error): void;
  /** Where documents are extracted, for uploads too (default: the process's shared extractor). */
  extractor?: DocumentExtractor;
  /** Each finished index of an account's folders (for the log). */
  onIndexed?(accountId: string, report: IndexReport, ms: number): void;
  debounceMs?: number;
};

/**
 * Keeps the knowledge index of the folder collections current for every account that
 * uses them: at start-up for accounts with an agent key, on first need for any other
 * (`ensureIndexed`, awaited before a search), and again, incrementally, for all of
 * them whenever a file under the knowledge folder changes, so an edited document
 * reaches agents on the next request after its re-index. Unchanged chunks are never
 * re-embedded (see knowledge-indexer). One account's syncs run one after another.
 */
export class KnowledgeSync {
  readonly #options: KnowledgeSyncOptions;
  readonly extractor: DocumentExtractor;
  #watcher: FolderWatcher | undefined;
  #running: Promise<void> | undefined;
  /** Per account, its latest sync (done or under way); absent until first needed, or after a failure. */
  readonly #synced = new Map<string, Promise<void>>();

  constructor(options: KnowledgeSyncOptions) {
    this.#options = options;
    this.extractor = options.extractor ?? sharedDocumentExtractor();
  }

  /** Starts the first sync in the background (start-up does not wait for embeddings) and watches the folder. */
  start(): void {
    this.#running = this.syncAll().catch((error: unknown) => this.#options.onError(asError(error)));
    this.#watcher = watchFolders({
      folders: [{ path: this.#options.knowledgeDir, recursive: true }],
      debounceMs: this.#options.debounceMs ?? 300,
      onChange: async () => {
        // An earlier sync's failure was reported when it happened; it must not stop this one.
        await this.#running?.catch(() => undefined);
        this.#running = this.syncAll();
        await this.#running;
      },
      onWatchError: this.#options.onError,
    });
  }

  async close(): Promise<void> {
    this.#watcher?.close();
    await this.#running?.catch(() => undefined);
    await Promise.all([...this.#synced.values()]);
    await this.extractor.close();
  }

  /**
   * Resolves once the account's folder collections are indexed: at once when they
   * already are, else after the sync this call starts (or the one under way). Never
   * rejects: a failed sync is reported, and the next call tries again.
   */
  ensureIndexed(accountId: string): Promise<void> {
    return this.#synced.get(accountId) ?? this.#queue(accountId);
  }

  /** Every account that has an agent key or has needed its knowledge in this process. */
  async syncAll(): Promise<void> {
    const accounts = await this.#options.db.query<{ account_id: string }>(`SELECT DISTINCT account_id FROM api_keys WHERE kind = 'agent' AND deleted_at IS NULL`);
    const ids = new Set([...accounts.rows.map((row) => row.account_id), ...this.#synced.keys()]);
    // One account's failure (its embeddings refused for lack of credit, say) must not
    // leave the accounts after it unindexed: each queued sync reports its own.
    for (const accountId of ids) await this.#queue(accountId);
  }

  sync(accountId: string, onProgress?: (progress: IndexProgress) => void): Promise<IndexReport> {
    const embedder = this.#options.embedderFor(accountId);
    return indexKnowledge({
      db: this.#options.db,
      accountId,
      rootDir: this.#options.knowledgeDir,
      ...(embedder && { embedder }),
      extractor: this.extractor,
      onDocumentError: (path, error) => this.#options.onError(new Error(`knowledge file ${path} skipped: ${error.message}`, { cause: error })),
      ...(onProgress && { onProgress }),
    });
  }

  /** A sync of one account after the one before it, logged when done, reported when it fails. */
  #queue(accountId: string): Promise<void> {
    const previous = this.#synced.get(accountId) ?? Promise.resolve();
    const next = previous.then(async () => {
      const startedAt = performance.now();
      try {
        const report = await this.sync(accountId);
        this.#options.onIndexed?.(accountId, report, Math.round(performance.now() - startedAt));
      } catch (error) {
        this.#options.onError(asError(error));
        if (this.#synced.get(accountId) === next) this.#synced.delete(accountId);
      }
    });
    this.#synced.set(accountId, next);
    return next;
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
