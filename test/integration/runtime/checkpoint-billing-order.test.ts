import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * A background run is resumed after a crash from its last durable checkpoint, and the
 * steps that checkpoint records are not run (or billed) again. So a durable checkpoint
 * must not reach the database before the usage rows of the calls it records: every
 * checkpoint write waits until the settlement queue has written them.
 */
const runtime = useRuntimeGateway({ helper: 'name: Helper\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\n' });

describe(`durable checkpoints and billing on ${engineName()}`, () => {
  it('writes each checkpoint of a background run only once every call settled before it is in the database', async () => {
    const { db, settlements } = runtime.gateway.services;
    await runtime.gateway.settle();
    const unwrittenAtCheckpoint: number[] = [];
    const query = db.query.bind(db);
    db.query = ((sql: string, params?: readonly unknown[]) => {
      if (sql.includes('INSERT INTO agent_checkpoints')) unwrittenAtCheckpoint.push(settlements.backlog().depth);
      return query(sql, params);
    }) as typeof db.query;
    try {
      const created = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, {
        method: 'POST',
        headers: runtime.headers(),
        body: JSON.stringify({ model: 'helper', input: 'shout this', background: true }),
      });
      const { id } = (await created.json()) as { id: string };
      let status = 'queued';
      for (const deadline = Date.now() + 30_000; (status === 'queued' || status === 'in_progress') && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses/${id}`, { headers: runtime.headers() });
        status = ((await response.json()) as { status: string }).status;
      }
      expect(status).toBe('completed');
    } finally {
      db.query = query;
    }
    // Model step, tool call, model step: each settled, then checkpointed.
    expect(unwrittenAtCheckpoint.length).toBeGreaterThanOrEqual(3);
    expect(unwrittenAtCheckpoint).toEqual(unwrittenAtCheckpoint.map(() => 0));
  });
});
