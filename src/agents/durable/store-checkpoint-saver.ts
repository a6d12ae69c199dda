import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  compareWritesSortKeys,
  getCheckpointId,
  type PendingWrite,
  type SerializerProtocol,
  WRITES_IDX_MAP,
  writesSortKey,
} from '@langchain/langgraph-checkpoint';
import type { Database } from '../../store/database.ts';
import { type BlobRow, CheckpointBatch, type CheckpointRow, type WriteRow } from './checkpoint-batch.ts';

/** `configurable` key a run sets when each step must be durable before the next ('sync' durability). */
export const SYNC_CHECKPOINTS = 'junction_sync_checkpoints';

type CheckpointRecord = {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  checkpoint: Omit<Checkpoint, 'channel_values'>;
  metadata: CheckpointMetadata;
};
type BlobRecord = { channel: string; version: string; type: string; blob: Uint8Array | null };
type WriteRecord = { task_id: string; idx: number; channel: string; type: string; blob: Uint8Array; task_path: string };

const text = new TextDecoder();
const bytes = new TextEncoder();

/**
 * LangGraph's checkpointer contract over the project's store, so the same SQL runs on
 * PGlite and PostgreSQL (the official PostgreSQL saver needs a `pg` pool). Tables as
 * LangGraph's PostgreSQL saver lays them out (migration 0008): a step writes the blobs
 * of the channels that changed, its checkpoint row and the writes of its tasks, grouped
 * into one statement by CheckpointBatch.
 */
export class StoreCheckpointSaver extends BaseCheckpointSaver {
  readonly #db: Database;
  readonly #batch: CheckpointBatch;
  /** Threads this instance saw start empty: deleting one whose rows were never written costs no query. */
  readonly #fresh = new Set<string>();
  readonly #known = new Set<string>();

  constructor(db: Database, options: { serde?: SerializerProtocol; onError?: (error: unknown) => void; beforeDurableWrite?: () => Promise<void> } = {}) {
    super(options.serde);
    this.#db = db;
    this.#batch = new CheckpointBatch(db, options.onError ?? (() => undefined), options.beforeDurableWrite);
  }

  /**
   * Declares `threadId` new (a random run id just made): LangGraph's first read of it is
   * answered without a query. Outside the saver contract, an optimisation only.
   */
  startThread(threadId: string): void {
    this.#known.add(threadId);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadOf(config);
    const namespace = namespaceOf(config);
    const checkpointId = getCheckpointId(config);
    if (this.#known.delete(threadId) && !checkpointId && namespace === '') {
      this.#fresh.add(threadId);
      return undefined;
    }
    await this.#batch.idle();
    const found = await this.#db.query<CheckpointRecord>(
      `SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM agent_checkpoints
       WHERE thread_id = $1 AND checkpoint_ns = $2 ${checkpointId ? 'AND checkpoint_id = $3' : ''}
       ORDER BY checkpoint_id DESC LIMIT 1`,
      checkpointId ? [threadId, namespace, checkpointId] : [threadId, namespace],
    );
    const record = found.rows[0];
    if (!record && !checkpointId && namespace === '') this.#fresh.add(threadId);
    return record ? this.#tuple(record) : undefined;
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    await this.#batch.idle();
    const conditions: string[] = [];
    const params: unknown[] = [];
    const where = (sql: string, value: unknown) => {
      params.push(value);
      conditions.push(sql.replace('?', `$${params.length}`));
    };
    const configurable = config.configurable ?? {};
    if (typeof configurable.thread_id === 'string') where('thread_id = ?', configurable.thread_id);
    if (typeof configurable.checkpoint_ns === 'string') where('checkpoint_ns = ?', configurable.checkpoint_ns);
    const checkpointId = getCheckpointId(config);
    if (checkpointId) where('checkpoint_id = ?', checkpointId);
    const before = options?.before ? getCheckpointId(options.before) : undefined;
    if (before) where('checkpoint_id < ?', before);
    if (options?.filter && Object.keys(options.filter).length > 0) where('metadata @> ?::jsonb', JSON.stringify(options.filter));
    const limit = options?.limit !== undefined ? `LIMIT ${Math.max(0, Math.floor(options.limit))}` : '';
    const found = await this.#db.query<CheckpointRecord>(
      `SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM agent_checkpoints
       ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY checkpoint_id DESC ${limit}`,
      params,
    );
    for (const record of found.rows) yield await this.#tuple(record);
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = threadOf(config);
    const namespace = namespaceOf(config);
    const { channel_values: values, ...rest } = checkpoint;
    const parentId = getCheckpointId(config) || null;
    const rows = async () => {
      const blobs: BlobRow[] = await Promise.all(
        Object.entries(newVersions).map(async ([channel, version]): Promise<BlobRow> => {
          if (!(channel in values)) return [threadId, namespace, channel, String(version), 'empty', null];
          const [type, blob] = await this.serde.dumpsTyped(values[channel]);
          return [threadId, namespace, channel, String(version), type, blob];
        }),
      );
      const [, checkpointJson] = await this.serde.dumpsTyped(rest);
      const [, metadataJson] = await this.serde.dumpsTyped(metadata);
      return { blobs, checkpoints: [[threadId, namespace, checkpoint.id, parentId, text.decode(checkpointJson), text.decode(metadataJson)] as CheckpointRow] };
    };
    await this.#batch.add(threadId, rows, isSync(config));
    return { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = threadOf(config);
    const checkpointId = getCheckpointId(config);
    if (!checkpointId) throw new Error('putWrites needs configurable.checkpoint_id');
    const rows = async () => ({
      writes: await Promise.all(
        writes.map(async ([channel, value], index): Promise<WriteRow> => {
          const [type, blob] = await this.serde.dumpsTyped(value);
          return [threadId, namespaceOf(config), checkpointId, taskId, WRITES_IDX_MAP[channel] ?? index, channel, type, blob, taskPath ?? ''];
        }),
      ),
    });
    await this.#batch.add(threadId, rows, isSync(config));
  }

  /** Resolves once every step queued so far is in the database (a run pausing: any process may resume it). */
  async written(): Promise<void> {
    await this.#batch.idle();
  }

  async deleteThread(threadId: string): Promise<void> {
    const neverWritten = this.#batch.discard(threadId) && this.#fresh.delete(threadId);
    if (neverWritten) return;
    this.#fresh.delete(threadId);
    await this.#batch.idle();
    await this.#db.query(
      `WITH w AS (DELETE FROM agent_checkpoint_writes WHERE thread_id = $1), b AS (DELETE FROM agent_checkpoint_blobs WHERE thread_id = $1)
       DELETE FROM agent_checkpoints WHERE thread_id = $1`,
      [threadId],
    );
  }

  async #tuple(record: CheckpointRecord): Promise<CheckpointTuple> {
    const { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpointId } = record;
    const checkpoint = (await this.serde.loadsTyped('json', JSON.stringify(record.checkpoint))) as Omit<Checkpoint, 'channel_values'>;
    const metadata = (await this.serde.loadsTyped('json', JSON.stringify(record.metadata))) as CheckpointMetadata;
    const versions = Object.entries(checkpoint.channel_versions);
    const [blobs, writes] = await Promise.all([
      versions.length === 0
        ? { rows: [] as BlobRecord[] }
        : this.#db.query<BlobRecord>(
            `SELECT b.channel, b.version, b.type, b.blob FROM agent_checkpoint_blobs b
             JOIN unnest($3::text[], $4::text[]) AS v(channel, version) ON v.channel = b.channel AND v.version = b.version
             WHERE b.thread_id = $1 AND b.checkpoint_ns = $2`,
            [threadId, namespace, versions.map(([channel]) => channel), versions.map(([, version]) => String(version))],
          ),
      this.#db.query<WriteRecord>('SELECT task_id, idx, channel, type, blob, task_path FROM agent_checkpoint_writes WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3', [
        threadId,
        namespace,
        checkpointId,
      ]),
    ]);
    const channelValues: Record<string, unknown> = {};
    for (const blob of blobs.rows) {
      if (blob.type !== 'empty' && blob.blob) channelValues[blob.channel] = await this.serde.loadsTyped(blob.type, asBytes(blob.blob));
    }
    const ordered = [...writes.rows].sort((a, b) => compareWritesSortKeys(writesSortKey(a.task_path, a.task_id, a.idx), writesSortKey(b.task_path, b.task_id, b.idx)));
    const pendingWrites: CheckpointPendingWrite[] = await Promise.all(
      ordered.map(async (write): Promise<CheckpointPendingWrite> => [write.task_id, write.channel, await this.serde.loadsTyped(write.type, asBytes(write.blob))]),
    );
    return {
      config: { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpointId } },
      checkpoint: { ...checkpoint, channel_values: channelValues },
      metadata,
      pendingWrites,
      ...(record.parent_checkpoint_id && { parentConfig: { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: record.parent_checkpoint_id } } }),
    };
  }
}

const isSync = (config: RunnableConfig): boolean => config.configurable?.[SYNC_CHECKPOINTS] === true;

function threadOf(config: RunnableConfig): string {
  const threadId: unknown = config.configurable?.thread_id;
  if (typeof threadId !== 'string' || threadId === '') throw new Error('a checkpointed run needs configurable.thread_id');
  return threadId;
}
const namespaceOf = (config: RunnableConfig): string => {
  const namespace: unknown = config.configurable?.checkpoint_ns;
  return typeof namespace === 'string' ? namespace : '';
};
// pg returns bytea as a Buffer (a Uint8Array); PGlite as a Uint8Array. Both satisfy the serde.
const asBytes = (value: Uint8Array): Uint8Array => (value instanceof Uint8Array ? value : bytes.encode(String(value)));
