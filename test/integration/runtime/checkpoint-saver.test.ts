import { Annotation, Command, interrupt, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreCheckpointSaver, SYNC_CHECKPOINTS } from '../../../src/agents/durable/store-checkpoint-saver.ts';
import type { Database } from '../../../src/store/database.ts';
import { migrate } from '../../../src/store/migrate.ts';
import { openDatabase } from '../../../src/store/open-database.ts';
import { engineName, freshStorage } from '../../support/test-database.ts';

/**
 * The checkpointer over the project's store, driven by LangGraph itself: the same graph
 * run against MemorySaver (LangGraph's reference saver) and against ours must produce
 * the same states, history and interrupt/resume behaviour — on the engine under test.
 */
let db: Database;
let drop: () => Promise<void>;
beforeAll(async () => {
  const storage = await freshStorage();
  drop = storage.drop;
  db = await openDatabase(storage);
  await migrate(db);
});
afterAll(async () => {
  await db.close();
  await drop();
});

const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
  approved: Annotation<boolean | undefined>({ reducer: (_, b) => b, default: () => undefined }),
});
let sideEffects = 0;
const builder = new StateGraph(State)
  .addNode('first', () => ({ log: ['first'] }))
  .addNode('ask', () => {
    const answer = interrupt({ question: 'go on?' }) as boolean;
    sideEffects += 1;
    return { approved: answer, log: [`asked:${answer}`] };
  })
  .addNode('last', (state) => ({ log: [`last:${state.log.length}`] }))
  .addEdge(START, 'first')
  .addEdge('first', 'ask')
  .addEdge('ask', 'last');

async function runToEnd(saver: StoreCheckpointSaver | MemorySaver, threadId: string) {
  const graph = builder.compile({ checkpointer: saver });
  const config = { configurable: { thread_id: threadId } };
  await graph.invoke({ log: ['input'] }, config);
  const paused = await graph.getState(config);
  const resumed = await graph.invoke(new Command({ resume: true }), config);
  const history = [];
  for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot.values);
  return { paused, resumed, history };
}

describe(`StoreCheckpointSaver on ${engineName()}`, () => {
  it('behaves like LangGraph MemorySaver: states, interrupts, resume and history', async () => {
    const reference = await runToEnd(new MemorySaver(), 'thread-memory');
    const ours = await runToEnd(new StoreCheckpointSaver(db), 'thread-store');
    expect(ours.paused.values).toEqual(reference.paused.values);
    expect(ours.paused.next).toEqual(['ask']);
    expect(ours.paused.tasks[0]?.interrupts[0]?.value).toEqual({ question: 'go on?' });
    expect(ours.resumed).toEqual({ log: ['input', 'first', 'asked:true', 'last:3'], approved: true });
    expect(ours.history).toEqual(reference.history);
  });

  it('with sync checkpoints, another saver instance (another process) resumes a paused thread at once', async () => {
    const graph = builder.compile({ checkpointer: new StoreCheckpointSaver(db) });
    await graph.invoke({ log: ['x'] }, { configurable: { thread_id: 'handover', [SYNC_CHECKPOINTS]: true } });
    const elsewhere = builder.compile({ checkpointer: new StoreCheckpointSaver(db) });
    const before = sideEffects;
    const result = await elsewhere.invoke(new Command({ resume: false }), { configurable: { thread_id: 'handover' } });
    expect(result.log).toEqual(['x', 'first', 'asked:false', 'last:3']);
    expect(sideEffects - before).toBe(1);
  });

  it('keeps async checkpoints until asked, writes them when a pause asks, and never writes a thread deleted before that', async () => {
    const saver = new StoreCheckpointSaver(db);
    const graph = builder.compile({ checkpointer: saver });
    // As the runner does: new threads need no read, so nothing asks for a write.
    saver.startThread('later');
    saver.startThread('gone');
    await graph.invoke({ log: ['z'] }, { configurable: { thread_id: 'later' } });
    await graph.invoke({ log: ['z'] }, { configurable: { thread_id: 'gone' } });
    const stored = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM agent_checkpoints WHERE thread_id IN ('later', 'gone')`)).rows[0]?.n;
    expect(await stored()).toBe(0);
    await saver.deleteThread('gone');
    await saver.written();
    const other = new StoreCheckpointSaver(db);
    expect((await other.getTuple({ configurable: { thread_id: 'later' } }))?.checkpoint.channel_values).toMatchObject({ log: ['z', 'first'] });
    expect(await other.getTuple({ configurable: { thread_id: 'gone' } })).toBeUndefined();
  });

  it('writes each channel value once per version, lists with filters and limits, and deletes a thread', async () => {
    const saver = new StoreCheckpointSaver(db);
    const graph = builder.compile({ checkpointer: saver });
    await graph.invoke({ log: ['y'] }, { configurable: { thread_id: 'listed' } });
    const all = [];
    for await (const tuple of saver.list({ configurable: { thread_id: 'listed' } })) all.push(tuple);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const ids = all.map((tuple) => tuple.checkpoint.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    const limited = [];
    for await (const tuple of saver.list({ configurable: { thread_id: 'listed' } }, { limit: 1, filter: { source: 'loop' } })) limited.push(tuple);
    expect(limited).toHaveLength(1);
    expect(limited[0]?.metadata?.source).toBe('loop');
    const before = [];
    for await (const tuple of saver.list({ configurable: { thread_id: 'listed' } }, { before: { configurable: { checkpoint_id: ids[0] } } })) before.push(tuple);
    expect(before.map((tuple) => tuple.checkpoint.id)).toEqual(ids.slice(1));
    // The `log` channel changed on every step, `approved` once: blobs are per (channel, version).
    const blobs = await db.query<{ channel: string; n: number }>(`SELECT channel, count(*)::int AS n FROM agent_checkpoint_blobs WHERE thread_id = 'listed' GROUP BY channel`);
    const byChannel = Object.fromEntries(blobs.rows.map((row) => [row.channel, row.n]));
    expect(byChannel.approved ?? 0).toBeLessThanOrEqual(1);
    expect(byChannel.log).toBeGreaterThanOrEqual(2);
    await saver.deleteThread('listed');
    expect(await saver.getTuple({ configurable: { thread_id: 'listed' } })).toBeUndefined();
    const left = await db.query(`SELECT 1 FROM agent_checkpoint_writes WHERE thread_id = 'listed' UNION ALL SELECT 1 FROM agent_checkpoint_blobs WHERE thread_id = 'listed'`);
    expect(left.rows).toHaveLength(0);
  });
});
