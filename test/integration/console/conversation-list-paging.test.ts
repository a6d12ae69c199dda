import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import type { ConversationPage } from '../../../src/console/contract/conversations.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { type GatewayHarness, startGateway } from '../../support/gateway-harness.ts';

/**
 * The console's list of an agent's conversations, paged by its cursor: every conversation of
 * the agent (and of the key asked for, or of a member's playground key) once, newest first,
 * whichever index answers it, among other agents', keys' and accounts' conversations.
 */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let member: ConsoleSession;
let keyA: string;
let keyB: string;
let keyNone: string;
let playgroundKey: string;
/** Every conversation made, in creation order. */
const made: Array<{ id: string; agent: string; key: string }> = [];

const keyIdNamed = async (name: string) => (await gateway.services.db.query<{ id: string }>('SELECT id FROM api_keys WHERE name = $1', [name])).rows[0]?.id ?? '';

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '../../fixtures/agents-e2e');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(fixtures, 'agents'), JUNCTION_TOOLS_DIR: join(fixtures, 'tools'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'member@example.com', password: 'member password 1', role: 'member' });
  owner = await signIn(gateway.app, 'owner@example.com', 'owner password 1');
  member = await signIn(gateway.app, 'member@example.com', 'member password 1');
  const other = (await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'Other team' })) as { data: { id: string } };
  await gateway.key('agent', { name: 'app a' });
  await gateway.key('agent', { name: 'app b' });
  await gateway.key('agent', { name: 'app none' });
  await gateway.key('agent', { name: 'their app' }, other.data.id);
  [keyA, keyB, keyNone] = await Promise.all([keyIdNamed('app a'), keyIdNamed('app b'), keyIdNamed('app none')]);
  const theirKey = await keyIdNamed('their app');
  // The member's first playground call makes their playground key.
  const created = await member.request('POST', '/agents/v1/conversations', {});
  expect(created.statusCode, created.body).toBe(200);
  playgroundKey = (await gateway.services.db.query<{ key_id: string }>('SELECT key_id FROM playground_keys')).rows[0]?.key_id ?? '';
  const accountId = gateway.services.defaultAccount.id;

  // Interleaved as traffic makes them: two agents, three keys of this account, and another account's of the same agent id.
  const keys = [keyA, keyB, playgroundKey];
  for (let index = 0; index < 60; index += 1) {
    const conversation = { id: `conv_paging_${index}`, agent: index % 2 === 0 ? 'echo' : 'helper', key: keys[index % 3] as string };
    made.push(conversation);
    await gateway.services.db.query(`INSERT INTO conversations (id, account_id, key_id, agent_id, title) VALUES ($1, $2, $3, $4, $5)`, [
      conversation.id,
      accountId,
      conversation.key,
      conversation.agent,
      `turn ${index}`,
    ]);
    if (index % 4 === 0) {
      await gateway.services.db.query(`INSERT INTO conversations (id, account_id, key_id, agent_id) VALUES ($1, $2, $3, 'echo')`, [`conv_theirs_${index}`, other.data.id, theirKey]);
    }
  }
});
afterAll(async () => gateway?.close());

/** Every page of the list, following next_cursor, as the ids and keys it showed. */
async function everyPage(session: ConsoleSession, agentId: string, filter: string): Promise<{ ids: string[]; keys: string[]; pages: number }> {
  const ids: string[] = [];
  const keys: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const response = await session.request('GET', `/console/api/agents/${agentId}/conversations?limit=4${filter}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(response.statusCode, response.body).toBe(200);
    const page = response.json<ConversationPage>();
    ids.push(...page.data.map((conversation) => conversation.id));
    keys.push(...page.data.map((conversation) => conversation.key.id));
    cursor = page.next_cursor;
    pages += 1;
  } while (cursor !== null && pages < 100);
  return { ids, keys, pages };
}

const newestFirst = (agent: string, key?: string) =>
  made
    .filter((conversation) => conversation.agent === agent && (key === undefined || conversation.key === key))
    .map((conversation) => conversation.id)
    .reverse();

describe("the console's list of an agent's conversations", () => {
  it('pages every conversation of the agent once, newest first', async () => {
    const listed = await everyPage(owner, 'echo', '');
    expect(listed.ids).toEqual(newestFirst('echo'));
    expect(listed.pages).toBe(Math.ceil(listed.ids.length / 4));
  });

  it('pages one key’s conversations of the agent once, newest first, and none of another key', async () => {
    for (const key of [keyA, keyB, playgroundKey]) {
      const listed = await everyPage(owner, 'helper', `&key_id=${key}`);
      expect(listed.ids).toEqual(newestFirst('helper', key));
      expect(new Set(listed.keys)).toEqual(new Set([key]));
    }
    expect((await everyPage(owner, 'echo', `&key_id=${keyNone}`)).ids).toEqual([]);
  });

  it('pages a member’s own playground conversations only, and nothing of another key they name', async () => {
    expect((await everyPage(member, 'echo', '')).ids).toEqual(newestFirst('echo', playgroundKey));
    expect((await everyPage(member, 'helper', `&key_id=${playgroundKey}`)).ids).toEqual(newestFirst('helper', playgroundKey));
    expect((await everyPage(member, 'echo', `&key_id=${keyA}`)).ids).toEqual([]);
  });

  it('starts after the cursor’s conversation whatever key filtered the page it came from', async () => {
    const cursor = newestFirst('echo', keyA)[2] as string;
    const response = await owner.request('GET', `/console/api/agents/echo/conversations?limit=100&cursor=${cursor}`);
    const all = newestFirst('echo');
    expect(response.json<ConversationPage>().data.map((conversation) => conversation.id)).toEqual(all.slice(all.indexOf(cursor) + 1));
  });
});
