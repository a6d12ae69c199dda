import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * Conversations in Chromium: the playground keeps its conversation across a reload and
 * branches on an edit; a conversation made through the API, with a tool step, is found
 * on the agent's Conversations tab and opened with its turns, its tool and its run's
 * usage, and its branches switched.
 */
const enabled = browserAvailable();
const SCREENSHOTS = process.env.JUNCTION_SCREENSHOTS ? join(import.meta.dirname, '../../docs/screenshots') : undefined;
const PASSWORD = 'conversations browser password';
let gateway: GatewayHarness;
let browser: Browser;
let page: Page;
let errors: string[];
let agentKey: string;

beforeAll(async () => {
  if (!enabled) return;
  const fixtures = join(import.meta.dirname, '../fixtures/agents-e2e');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(fixtures, 'agents'), JUNCTION_TOOLS_DIR: join(fixtures, 'tools'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'reader@example.com', password: PASSWORD, role: 'owner' });
  agentKey = await gateway.key('agent', { name: 'mobile app' });
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: gateway.baseUrl })).newPage();
  errors = collectErrors(page);
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill('reader@example.com');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
});
afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await gateway?.close();
});

async function chat(payload: Record<string, unknown>): Promise<{ conversation_id: string; message_id: string }> {
  const response = await fetch(`${gateway.baseUrl}/agents/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { conversation_id: string; message_id: string };
}

describe.skipIf(!enabled)('conversations in the console', () => {
  it('keeps the playground conversation across a reload, continues it, and starts a new one', async () => {
    await page.goto('/agents/echo');
    const playground = page.getByRole('region', { name: 'Playground' });
    await playground.getByLabel('Message', { exact: true }).fill('remember this line');
    await playground.getByRole('button', { name: 'Send' }).click();
    await playground.getByText(/completed · \d+ in \/ \d+ out tokens/).waitFor();

    await page.reload();
    await playground.getByRole('button', { name: 'Edit message: remember this line' }).waitFor();
    // The echoed answer came back with it, and the next message continues the same conversation.
    await expect(playground.getByText('remember this line', { exact: true }).count()).resolves.toBe(2);
    await playground.getByLabel('Message', { exact: true }).fill('second line');
    await playground.getByRole('button', { name: 'Send' }).click();
    await playground
      .getByText(/completed · \d+ in \/ \d+ out tokens/)
      .nth(1)
      .waitFor();
    const stored = await gateway.services.db.query<{ messages: string }>(
      "SELECT count(*) AS messages FROM conversation_messages WHERE conversation_id = (SELECT conversation_id FROM conversation_messages WHERE message->'content'->0->>'text' = 'remember this line' LIMIT 1)",
    );
    expect(Number(stored.rows[0]?.messages)).toBe(4);

    await page.reload();
    await playground.getByRole('button', { name: 'Edit message: second line' }).waitFor();
    await playground.getByRole('button', { name: 'New conversation' }).click();
    await expect(playground.getByRole('button', { name: /Edit message/ }).count()).resolves.toBe(0);
    await page.reload();
    await playground.getByLabel('Message', { exact: true }).waitFor();
    await expect(playground.getByRole('button', { name: /Edit message/ }).count()).resolves.toBe(0);
  });

  it('branches when an earlier message is edited, and the branch survives a reload', async () => {
    const playground = page.getByRole('region', { name: 'Playground' });
    await playground.getByLabel('Message', { exact: true }).fill('opening words');
    await playground.getByRole('button', { name: 'Send' }).click();
    await playground.getByText(/completed ·/).waitFor();
    await playground.getByLabel('Message', { exact: true }).fill('follow-up one');
    await playground.getByRole('button', { name: 'Send' }).click();
    await playground
      .getByText(/completed ·/)
      .nth(1)
      .waitFor();

    await playground.getByRole('button', { name: 'Edit message: follow-up one' }).click();
    await playground.getByLabel('Edited message').fill('follow-up two');
    await playground.getByRole('button', { name: 'Send edit' }).click();
    await playground.getByText('2/2').waitFor();
    await playground
      .getByText(/completed ·/)
      .nth(1)
      .waitFor();

    await page.reload();
    await playground.getByText('2/2').waitFor();
    await playground.getByRole('button', { name: 'Edit message: follow-up two' }).waitFor();
    await playground.getByRole('button', { name: 'Previous branch' }).click();
    await playground.getByRole('button', { name: 'Edit message: follow-up one' }).waitFor();
    await playground.getByText('1/2').waitFor();
  });

  it('finds an API conversation on the Conversations tab and shows its turns, tool step, usage and branches', async () => {
    const first = await chat({ model: 'helper', messages: [{ role: 'user', content: 'shout fake please' }] });
    const second = await chat({ model: 'helper', conversation_id: first.conversation_id, messages: [{ role: 'user', content: 'first follow-up' }] });
    expect(second.conversation_id).toBe(first.conversation_id);
    await chat({ model: 'helper', conversation_id: first.conversation_id, parent_message_id: first.message_id, messages: [{ role: 'user', content: 'second follow-up' }] });

    await page.goto('/agents/helper');
    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Conversations' }).click();
    const table = page.getByRole('table', { name: 'Conversations' });
    const row = table.getByRole('row', { name: /shout fake please/ });
    await row.getByRole('cell', { name: 'mobile app', exact: true }).waitFor();
    await row.getByRole('link', { name: 'shout fake please' }).click();

    await page.getByRole('heading', { name: 'shout fake please' }).waitFor();
    const turns = page.getByRole('list', { name: 'Turns' });
    const tool = turns.getByRole('region', { name: 'Tool call echo_upper' }).first();
    await expect(tool.getByLabel('Arguments').textContent()).resolves.toBe('{"text":"fake"}');
    await expect(tool.getByLabel('Result').textContent()).resolves.toBe('FAKE');
    await turns.getByText('Tool echo_upper returned: FAKE').first().waitFor();
    const usage = turns.getByRole('list', { name: 'Run usage' }).first();
    await expect(usage.textContent()).resolves.toMatch(/Run run_\w+ · 3 calls · \d+ in \/ \d+ out tokens · \$/);
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'conversation.png'), fullPage: true });
    // Each turn's run opens its run page.
    await usage.getByRole('link', { name: /^Run run_/ }).click();
    await page.waitForURL(/\/runs\/run_/);

    await page.goBack();
    // The newest branch shows first; the switcher goes back to the first follow-up.
    await turns.getByText('second follow-up').waitFor();
    await turns.getByText('2/2').waitFor();
    await turns.getByRole('button', { name: 'Previous branch' }).click();
    await turns.getByText('first follow-up').waitFor();
    await expect(turns.getByText('second follow-up').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
  });
});
