import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/account-repository.ts';
import { feedbackByVersion, listFeedback } from '../../src/agents/feedback/feedback-repository.ts';
import { KeyHasher } from '../../src/keys/key-hash.ts';
import { createKey } from '../../src/keys/key-service.ts';
import type { Database } from '../../src/store/database.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { migrationsBefore } from '../support/earlier-migrations.ts';
import { freshStorage } from '../support/test-database.ts';

/**
 * An agent's feedback per version is kept as sums (migration 0040): backfilled from the
 * entries written before, then kept with every insert, update and delete, the cascades
 * from a deleted conversation or response included, concurrent statements too. The
 * console's summary reads them and matches the entries themselves. On PGlite, and on
 * PostgreSQL with DATABASE_URL.
 */
let storage: Awaited<ReturnType<typeof freshStorage>>;
let db: Database;
let earlier: ReturnType<typeof migrationsBefore>;
const accounts: string[] = [];
const keys: string[] = [];
let written = 0;

beforeAll(async () => {
  storage = await freshStorage();
  db = await openDatabase({ databaseUrl: storage.databaseUrl, dataDir: storage.dataDir });
  earlier = migrationsBefore(40);
  await migrate(db, earlier.dir);
  for (const name of ['Rated team', 'Other team']) {
    const account = await createAccount(db, name);
    accounts.push(account.id);
    const { record } = await createKey(db, new KeyHasher('feedback totals test secret'), { accountId: account.id, kind: 'agent', settings: { name: 'app' } });
    keys.push(record.id);
  }
});
afterAll(async () => {
  await db?.close();
  await storage?.drop();
  earlier?.remove();
});

/** A conversation with `count` rated messages, each rated once, with versions and scores in turn. */
async function rateConversation(account: number, agent: string, count: number, versions: Array<string | null>): Promise<string> {
  written += 1;
  const conversation = `conv_totals_${written}`;
  await db.query('INSERT INTO conversations (id, account_id, key_id, agent_id) VALUES ($1, $2, $3, $4)', [conversation, accounts[account], keys[account], agent]);
  const rows = Array.from({ length: count }, (_, index) => ({ index, version: versions[index % versions.length] ?? null, score: [1, 0, 0.5, 0.25, 0.75, 0.1][(written + index) % 6] }));
  await db.query(
    `INSERT INTO agent_feedback (id, account_id, message_id, conversation_id, agent_id, agent_version, score)
     SELECT $1 || '_' || r.index, $2, 'msg_' || $1 || '_' || r.index, $1, $3, r.version, r.score
     FROM jsonb_to_recordset($4::jsonb) AS r(index int, version text, score float8)`,
    [conversation, accounts[account], agent, JSON.stringify(rows)],
  );
  return conversation;
}

/** A stored response rated `count` times. */
async function rateResponse(account: number, agent: string, version: string, count: number): Promise<string> {
  written += 1;
  const response = `resp_totals_${written}`;
  await db.query(`INSERT INTO responses (id, account_id, key_id, agent_id, status, request) VALUES ($1, $2, $3, $4, 'completed', '{}')`, [response, accounts[account], keys[account], agent]);
  for (let index = 0; index < count; index += 1)
    await db.query('INSERT INTO agent_feedback (id, account_id, response_id, agent_id, agent_version, score) VALUES ($1, $2, $3, $4, $5, $6)', [
      `${response}_${index}`,
      accounts[account],
      response,
      agent,
      version,
      index % 2,
    ]);
  return response;
}

/** The kept sums of every account, agent and version with entries, next to the entries summed the same way. */
async function totalsAndEntries(): Promise<{ totals: unknown[]; entries: unknown[] }> {
  const order = 'ORDER BY 1, 2, 3 NULLS FIRST';
  const totals = await db.query(
    `SELECT account_id, agent_id, agent_version, entries::int AS entries, score_sum::float8 AS score_sum, up::int AS up, down::int AS down
     FROM agent_feedback_version_totals WHERE entries <> 0 ${order}`,
  );
  const entries = await db.query(
    `SELECT account_id, agent_id, agent_version, count(*)::int AS entries, sum(score::numeric)::float8 AS score_sum,
       (count(*) FILTER (WHERE score >= 0.5))::int AS up, (count(*) FILTER (WHERE score < 0.5))::int AS down
     FROM agent_feedback GROUP BY 1, 2, 3 ${order}`,
  );
  return { totals: totals.rows, entries: entries.rows };
}

/** The summary computed from the entries: last_at is the newest entry's (by position: concurrent writers' clocks may disagree with it by a millisecond). */
async function summaryFromEntries(account: number, agent: string) {
  const result = await db.query<{ version: string | null; count: number; mean: number; up: number; down: number; last_at: Date }>(
    `SELECT agent_version AS version, count(*)::int AS count, avg(score)::float8 AS mean, (count(*) FILTER (WHERE score >= 0.5))::int AS up,
       (count(*) FILTER (WHERE score < 0.5))::int AS down, (array_agg(created_at ORDER BY position DESC))[1] AS last_at
     FROM agent_feedback WHERE account_id = $1 AND agent_id = $2 GROUP BY 1 ORDER BY max(position) DESC`,
    [accounts[account], agent],
  );
  return result.rows;
}

async function expectSummaryMatches(account: number, agent: string): Promise<void> {
  const summary = await feedbackByVersion(db, accounts[account] as string, agent);
  const expected = await summaryFromEntries(account, agent);
  expect(summary.map((entry) => [entry.version, entry.count, entry.up, entry.down, entry.lastAt.getTime()])).toEqual(
    expected.map((entry) => [entry.version, entry.count, entry.up, entry.down, entry.last_at.getTime()]),
  );
  summary.forEach((entry, index) => expect(entry.meanScore).toBeCloseTo(expected[index]?.mean ?? Number.NaN, 12));
}

describe("an agent's feedback per version", () => {
  it('is backfilled from the entries written before the sums were kept', async () => {
    await rateConversation(0, 'helper', 40, [null, 'v1', 'v2']);
    await rateConversation(0, 'echo', 12, ['v1']);
    await rateConversation(1, 'helper', 9, ['v1', null]);
    expect(await migrate(db)).toContain('0040_agent_feedback_version_totals');
    const backfilled = await totalsAndEntries();
    expect(backfilled.totals.length).toBe(6);
    expect(backfilled.totals).toEqual(backfilled.entries);
    await expectSummaryMatches(0, 'helper');
  });

  it('follows every insert and every cascading delete, and the summary with it', async () => {
    const first = await rateConversation(0, 'helper', 25, ['v2', 'v3']);
    const response = await rateResponse(0, 'helper', 'v3', 7);
    await rateConversation(0, 'helper', 5, ['v1']);
    expect((await feedbackByVersion(db, accounts[0] as string, 'helper')).map((entry) => entry.version)).toEqual(['v1', 'v3', 'v2', null]);

    // The newest v1 entries go with their conversation: v1's latest is the first conversation's now, so it moves down to last.
    const newest = await db.query<{ conversation_id: string }>("SELECT conversation_id FROM agent_feedback WHERE agent_version = 'v1' AND agent_id = 'helper' ORDER BY position DESC LIMIT 1");
    await db.query('DELETE FROM conversations WHERE id = $1', [newest.rows[0]?.conversation_id]);
    await db.query('DELETE FROM responses WHERE id = $1', [response]);
    await db.query('DELETE FROM conversations WHERE id = $1', [first]);
    const kept = await totalsAndEntries();
    expect(kept.totals).toEqual(kept.entries);
    await expectSummaryMatches(0, 'helper');
    expect((await feedbackByVersion(db, accounts[0] as string, 'helper')).map((entry) => entry.version)).toEqual([null, 'v2', 'v1']);
    await expectSummaryMatches(1, 'helper');
  });

  it('leaves a version out once its last entry is gone, and an agent with none empty', async () => {
    const only = await rateResponse(1, 'librarian', 'v9', 3);
    expect(await feedbackByVersion(db, accounts[1] as string, 'librarian')).toHaveLength(1);
    await db.query('DELETE FROM responses WHERE id = $1', [only]);
    expect(await feedbackByVersion(db, accounts[1] as string, 'librarian')).toEqual([]);
    expect(await feedbackByVersion(db, accounts[0] as string, 'librarian')).toEqual([]);
  });

  it('moves an entry between versions and ratings when it is updated', async () => {
    await db.query("UPDATE agent_feedback SET agent_version = 'v4', score = 1 - score WHERE account_id = $1 AND agent_id = 'echo' AND id LIKE '%_1_'", [accounts[0]]);
    await db.query("UPDATE agent_feedback SET agent_id = 'helper' WHERE account_id = $1 AND agent_id = 'echo' AND id LIKE '%_3'", [accounts[0]]);
    const moved = await totalsAndEntries();
    expect(moved.totals).toEqual(moved.entries);
    expect((await feedbackByVersion(db, accounts[0] as string, 'echo')).map((entry) => entry.version).sort()).toEqual(['v1', 'v4']);
    await expectSummaryMatches(0, 'echo');
    await expectSummaryMatches(0, 'helper');
  });

  it('stays exact under concurrent statements on the same versions', async () => {
    await Promise.all([0, 1, 2, 3].map((batch) => rateConversation(batch % 2, 'helper', 30 + batch, ['v1', 'v2', null])));
    const conversations = await db.query<{ id: string }>("SELECT id FROM conversations WHERE account_id = $1 AND agent_id = 'helper' ORDER BY position LIMIT 2", [accounts[0]]);
    await Promise.all([...conversations.rows.map((row) => db.query('DELETE FROM conversations WHERE id = $1', [row.id])), rateConversation(0, 'helper', 11, ['v2'])]);
    const kept = await totalsAndEntries();
    expect(kept.totals).toEqual(kept.entries);
    await expectSummaryMatches(0, 'helper');
    await expectSummaryMatches(1, 'helper');
  });

  it('counts the same entries "up" and "down" as the rated runs filter does', async () => {
    const [summary] = await feedbackByVersion(db, accounts[0] as string, 'echo').then((versions) => versions.filter((entry) => entry.version === 'v1'));
    const page = async (rating: 'up' | 'down') => (await listFeedback(db, accounts[0] as string, { agentId: 'echo', agentVersion: 'v1', rating }, { limit: 100, after: null })).entries;
    const [up, down] = await Promise.all([page('up'), page('down')]);
    expect(up.every((entry) => entry.score >= 0.5) && down.every((entry) => entry.score < 0.5)).toBe(true);
    expect([up.length, down.length]).toEqual([summary?.up, summary?.down]);
    expect(up.length).toBeGreaterThan(0);
    expect(down.length).toBeGreaterThan(0);
  });
});
