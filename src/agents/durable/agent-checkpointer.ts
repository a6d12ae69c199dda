import type { Database } from '../../store/database.ts';
import type { StoreCheckpointSaver } from './store-checkpoint-saver.ts';

/**
 * The store's LangGraph checkpointer, built at its first use. Its class extends
 * LangGraph's `BaseCheckpointSaver`, whose module pulls in LangChain core (about half
 * a second and 30 MB), so a process that never runs an agent never loads it.
 */
export class AgentCheckpointer {
  readonly #db: Database;
  readonly #options: { onError: (error: unknown) => void; beforeDurableWrite: () => Promise<void> };
  #saver: Promise<StoreCheckpointSaver> | undefined;

  /** `beforeDurableWrite`: see CheckpointBatch (the settlement queue's writeQueued). */
  constructor(db: Database, options: { onError: (error: unknown) => void; beforeDurableWrite: () => Promise<void> }) {
    this.#db = db;
    this.#options = options;
  }

  saver(): Promise<StoreCheckpointSaver> {
    this.#saver ??= import('./store-checkpoint-saver.ts').then(({ StoreCheckpointSaver }) => new StoreCheckpointSaver(this.#db, this.#options));
    return this.#saver;
  }

  /** Whether the run `threadId` has a checkpoint to resume from. */
  async hasCheckpoint(threadId: string): Promise<boolean> {
    const saver = await this.saver();
    return (await saver.getTuple({ configurable: { thread_id: threadId } })) !== undefined;
  }

  async deleteThread(threadId: string): Promise<void> {
    await (await this.saver()).deleteThread(threadId);
  }
}
