import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { recordStatements } from '../../support/statement-recorder.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * What a plain agent turn (one model step, no tools, no pause) writes before it answers:
 * its conversation in ONE statement (conversation, messages and updated_at together, and
 * on /responses the response row too),
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

    const { statements, stop } = recordStatements(gateway.services.db);
    try {
      const first = await send('a new conversation');
      expect(first.statusCode).toBe(200);
      const ids = first.json<{ conversation_id: string }>();
      const next = await send('the next turn', ids.conversation_id);
      expect(next.statusCode).toBe(200);
      await new Promise((resolve) => setImmediate(resolve)); // deletions run off the answer's path
    } finally {
      stop();
    }
    const writes = turnWrites(statements);
    expect(writes.filter((sql) => sql.includes('conversation_messages'))).toHaveLength(2);
    expect(writes.filter((sql) => sql.includes('agent_checkpoint') || sql === 'transaction')).toEqual([]);
    expect(writes).toHaveLength(2);

    const conversationId = (await gateway.services.db.query<{ conversation_id: string }>('SELECT conversation_id FROM conversation_messages ORDER BY created_at DESC LIMIT 1')).rows[0]
      ?.conversation_id;
    const tree = await gateway.app.inject({ url: `/agents/v1/conversations/${conversationId}`, headers: runtime.headers() });
    expect(tree.statusCode).toBe(200);
    expect(JSON.stringify(tree.json())).toContain('the next turn');
    expect(tree.json()).toMatchObject({ id: conversationId, title: 'a new conversation' });
  });

  it('on /responses, writes the turn and its response row in one statement, and the response reads back and continues', async () => {
    const gateway = runtime.gateway;
    const send = (input: string, previous?: string) =>
      gateway.app.inject({ method: 'POST', url: '/agents/v1/responses', headers: runtime.headers(), payload: { model: 'echo', input, ...(previous && { previous_response_id: previous }) } });
    await send('warm up');
    await gateway.settle();
    const { statements, stop } = recordStatements(gateway.services.db);
    let first;
    let next;
    try {
      first = await send('first words');
      expect(first.statusCode).toBe(200);
      next = await send('second words', first.json<{ id: string }>().id);
      expect(next.statusCode).toBe(200);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      stop();
    }
    const writes = turnWrites(statements);
    expect(writes).toHaveLength(2);
    for (const sql of writes) {
      expect(sql).toContain('INSERT INTO conversation_messages');
      expect(sql).toContain('INSERT INTO responses');
    }
    const stored = await gateway.app.inject({ url: `/agents/v1/responses/${next.json<{ id: string }>().id}`, headers: runtime.headers() });
    expect(stored.statusCode).toBe(200);
    expect(stored.json()).toMatchObject({ status: 'completed', previous_response_id: first.json<{ id: string }>().id });
    // The continuation saw the first turn: the upstream got both user messages.
    const upstreamMessages = (gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages;
    expect(upstreamMessages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['first words', 'second words']);
  });
});

/** Writes on the answer's path: settlement's group commit (usage rows, spend) is written off it, so not counted. */
const turnWrites = (statements: string[]) => statements.filter((sql) => /\b(INSERT INTO|UPDATE|DELETE FROM)\b|^transaction$/.test(sql) && !sql.includes('jsonb_to_recordset'));
