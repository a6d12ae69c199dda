import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * What a plain agent turn (one model step, no tools, no pause) writes before it answers:
 * its conversation in ONE statement (conversation, messages and updated_at together),
 * and no checkpoint at all (a finished foreground run's checkpoints are dropped unwritten).
 * The turn's cost on PGlite is mostly statements, so this keeps the overhead down.
 */
const runtime = useRuntimeGateway({ echo: 'name: Echo\nmodel: openai/test-echo\ninstructions: Repeat.\n' });

describe(`a plain agent turn on ${engineName()}`, () => {
  it('writes its conversation in one statement and no checkpoint, and the stored turn reads back whole', async () => {
    const gateway = runtime.gateway;
    const send = (content: string, conversationId?: string) =>
      gateway.app.inject({
        method: 'POST',
        url: '/agents/v1/chat/completions',
        headers: runtime.headers(),
        payload: { model: 'echo', messages: [{ role: 'user', content }], ...(conversationId && { conversation_id: conversationId }) },
      });
    await send('warm up'); // leases, caches, lazily loaded runtime
    await gateway.settle();

    const db = gateway.services.db;
    const statements: string[] = [];
    const original = db.query.bind(db);
    const originalTransaction = db.transaction.bind(db);
    db.query = ((sql: string, params?: unknown[]) => {
      statements.push(sql);
      return original(sql, params);
    }) as typeof db.query;
    db.transaction = ((work: Parameters<typeof db.transaction>[0]) => {
      statements.push('transaction');
      return originalTransaction(work);
    }) as typeof db.transaction;
    try {
      const first = await send('a new conversation');
      expect(first.statusCode).toBe(200);
      const ids = first.json<{ conversation_id: string }>();
      const next = await send('the next turn', ids.conversation_id);
      expect(next.statusCode).toBe(200);
      await new Promise((resolve) => setImmediate(resolve)); // deletions run off the answer's path
    } finally {
      db.query = original;
      db.transaction = originalTransaction;
    }
    // Settlement's group commit (usage rows, spend) is written off the answer's path: not counted.
    const writes = statements.filter((sql) => /\b(INSERT INTO|UPDATE|DELETE FROM)\b|^transaction$/.test(sql) && !sql.includes('jsonb_to_recordset'));
    expect(writes.filter((sql) => sql.includes('conversation_messages'))).toHaveLength(2);
    expect(writes.filter((sql) => sql.includes('agent_checkpoint') || sql === 'transaction')).toEqual([]);
    expect(writes).toHaveLength(2);

    const conversationId = (await gateway.services.db.query<{ conversation_id: string }>('SELECT conversation_id FROM conversation_messages ORDER BY created_at DESC LIMIT 1')).rows[0]?.conversation_id;
    const tree = await gateway.app.inject({ url: `/agents/v1/conversations/${conversationId}`, headers: runtime.headers() });
    expect(tree.statusCode).toBe(200);
    expect(JSON.stringify(tree.json())).toContain('the next turn');
    expect(tree.json()).toMatchObject({ id: conversationId, title: 'a new conversation' });
  });
});
