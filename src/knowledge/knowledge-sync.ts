import type { Database } from '../store/database.ts';
import { type FolderWatcher, watchFolders } from '../tools/folder-watcher.ts';
import type { Embedder } from './embedder.ts';
import { type IndexProgress, type IndexReport, indexKnowledge } from './knowledge-indexer.ts';

export type KnowledgeSyncOptions = {
  db: Database;
  knowledgeDir: string;
  /** The embedder that bills this account, or undefined for full text only. */
  embedderFor(accountId: string): Embedder | undefined;
  onError(error: Error): void;
  debounceMs?: number;
};

/**
 * Keeps the knowledge index current for the accounts that can use agents (those with
 * an agent key): once at start-up and again, incrementally, whenever a file under the
 * knowledge folder changes, so an edited document reaches agents on the next request
 * after its re-index. Unchanged chunks are never re-embedded (see knowledge-indexer).
 */
export class KnowledgeSync {
  readonly #options: KnowledgeSyncOptions;
  #watcher: FolderWatcher | undefined;
  #running: Promise<void> | undefined;

  constructor(options: KnowledgeSyncOptions) {
    this.#options = options;
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
  }

  async syncAll(): Promise<void> {
    const accounts = await this.#options.db.query<{ account_id: string }>(
      `SELECT DISTINCT account_id FROM api_keys WHERE kind = 'agent' AND deleted_at IS NULL`,
    );
    // One account's failure (its embeddings refused for lack of credit, say) must not
    // leave the accounts after it unindexed.
    for (const row of accounts.rows) {
      await this.sync(row.account_id).catch((error: unknown) => this.#options.onError(asError(error)));
    }
  }

  sync(accountId: string, onProgress?: (progress: IndexProgress) => void): Promise<IndexReport> {
    const embedder = this.#options.embedderFor(accountId);
    return indexKnowledge({
      db: this.#options.db,
      accountId,
      rootDir: this.#options.knowledgeDir,
      ...(embedder && { embedder }),
      ...(onProgress && { onProgress }),
    });
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
