import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import type { FeedbackPage } from '../../../src/console/contract/feedback.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { type GatewayHarness, startGateway } from '../../support/gateway-harness.ts';

/**
 * The console's rated runs (`GET /console/api/feedback`), paged by its cursor under each
 * filter: every entry of the account that matches once, newest first, whichever index
 * answers it, among other agents', versions' and accounts' entries.
 */
let gateway: GatewayHarness;
let owner: ConsoleSession;
/** Every entry of the signed-in account, in the order given. */
const given: Array<{ id: string; agent: string; version: string | null; down: boolean }> = [];

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '../../fixtures/agents-e2e');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(fixtures, 'agents'), JUNCTION_TOOLS_DIR: join(fixtures, 'tools'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  const other = (await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'Other team' })) as { data: { id: string } };
  const accountId = gateway.services.defaultAccount.id;
  const insert = (id: string, account: string, agent: string, version: string | null, score: number) =>
    gateway.services.db.query(`INSERT INTO agent_feedback (id, account_id, message_id, run_id, agent_id, agent_version, score) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      id,
      account,
      `msg_${id}`,
      `run_${id}`,
      agent,
      version,
      score,
    ]);
  // Interleaved as people rate answers: three agents, two versions and none, 1 in 3 a thumb down, and another account's of the same agent.
  for (let index = 0; index < 90; index += 1) {
    const entry = { id: `fb_paging_${index}`, agent: ['echo', 'helper', 'thinker'][index % 3] as string, version: [null, 'v1', 'v2', 'v2'][index % 4] ?? null, down: index % 5 < 2 };
    given.push(entry);
    await insert(entry.id, accountId, entry.agent, entry.version, entry.down ? 0 : 1);
    if (index % 4 === 0) await insert(`fb_theirs_${index}`, other.data.id, 'echo', 'v2', 0);
  }
});
afterAll(async () => gateway?.close());

/** Every page of the list under `filter`, following next_cursor. */
async function everyPage(filter: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const response = await owner.request('GET', `/console/api/feedback?limit=4${filter}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(response.statusCode, response.body).toBe(200);
    const page = response.json<FeedbackPage>();
    ids.push(...page.data.map((entry) => entry.id));
    cursor = page.next_cursor;
    pages += 1;
  } while (cursor !== null && pages < 100);
  expect(pages).toBe(Math.max(1, Math.ceil(ids.length / 4)));
  return ids;
}

const newestFirst = (match: (entry: (typeof given)[number]) => boolean) =>
  given
    .filter(match)
    .map((entry) => entry.id)
    .reverse();

describe("the console's rated runs", () => {
  it('pages every entry of the account once, newest first', async () => {
    expect(await everyPage('')).toEqual(newestFirst(() => true));
  });

  it('pages one agent’s entries once, newest first, with and without a rating', async () => {
    for (const agent of ['echo', 'helper', 'thinker']) {
      expect(await everyPage(`&agent_id=${agent}`)).toEqual(newestFirst((entry) => entry.agent === agent));
      expect(await everyPage(`&agent_id=${agent}&rating=down`)).toEqual(newestFirst((entry) => entry.agent === agent && entry.down));
      expect(await everyPage(`&agent_id=${agent}&rating=up`)).toEqual(newestFirst((entry) => entry.agent === agent && !entry.down));
    }
    expect(await everyPage('&agent_id=librarian')).toEqual([]);
  });

  it('pages one version’s entries of an agent once, newest first, with and without a rating', async () => {
    for (const agent of ['echo', 'helper']) {
      for (const version of ['v1', 'v2']) {
        expect(await everyPage(`&agent_id=${agent}&agent_version=${version}`)).toEqual(newestFirst((entry) => entry.agent === agent && entry.version === version));
        expect(await everyPage(`&agent_id=${agent}&agent_version=${version}&rating=down`)).toEqual(newestFirst((entry) => entry.agent === agent && entry.version === version && entry.down));
      }
    }
    expect(await everyPage('&agent_id=echo&agent_version=v9')).toEqual([]);
  });

  it('starts after the cursor’s entry whatever filter the page it came from had', async () => {
    const cursor = newestFirst((entry) => entry.agent === 'helper' && entry.version === 'v2')[1] as string;
    const response = await owner.request('GET', `/console/api/feedback?limit=100&agent_id=helper&cursor=${cursor}`);
    const all = newestFirst((entry) => entry.agent === 'helper');
    expect(response.json<FeedbackPage>().data.map((entry) => entry.id)).toEqual(all.slice(all.indexOf(cursor) + 1));
  });

  it('sums an agent’s entries per version from the same rows', async () => {
    const response = await owner.request('GET', '/console/api/agents/echo/feedback-summary');
    expect(response.statusCode, response.body).toBe(200);
    const versions = response.json<{ versions: Array<{ version: string | null; count: number; down: number }> }>().versions;
    const echo = given.filter((entry) => entry.agent === 'echo');
    for (const version of [null, 'v1', 'v2']) {
      const mine = echo.filter((entry) => entry.version === version);
      expect(versions.find((entry) => entry.version === version)).toMatchObject({ count: mine.length, down: mine.filter((entry) => entry.down).length });
    }
  });
});
