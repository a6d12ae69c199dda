import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * Agents in the console, in Chromium: create one in the editor, call it with an agent
 * key, save a draft and see the next call use it once published, roll back, stage and
 * promote, duplicate a file agent, and run the playground on a tool-using turn.
 */
const enabled = browserAvailable();
const PASSWORD = 'agents browser password';
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
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'builder@example.com', password: PASSWORD, role: 'owner' });
  agentKey = await gateway.key('agent');
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: gateway.baseUrl })).newPage();
  errors = collectErrors(page);
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill('builder@example.com');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
});
afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await gateway?.close();
});

const systemPromptOfLastCall = (): string => {
  const body = gateway.openai.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> };
  return body.messages.find((message) => message.role === 'system')?.content ?? '';
};

async function callAgent(model: string): Promise<{ agent_version: string }> {
  const response = await fetch(`${gateway.baseUrl}/agents/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello agent' }] }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { agent_version: string };
}

describe.skipIf(!enabled)('agents in the console', () => {
  it('creates an agent in the editor that an agent key can call', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByLabel('Agent id').fill('greeter');
    await page.getByLabel('Name').fill('Greeter');
    await page.getByLabel('Description').fill('Says hello');
    await page.getByLabel('Model', { exact: true }).selectOption('openai/test-echo');
    await page.getByLabel('Instructions').fill('# Greeter\n\nAlways greet warmly.');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByLabel('Instructions preview').getByRole('heading', { name: 'Greeter' }).waitFor();
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Agent greeter' }).waitFor();
    expect(await callAgent('greeter')).toMatchObject({ agent_version: 'v1' });
    expect(systemPromptOfLastCall()).toContain('Always greet warmly.');
  });

  it('shows a refused save beside the field and keeps serving the last version', async () => {
    await page.getByLabel('Max steps').fill('500');
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByText(/less than or equal to 100|100/)
      .first()
      .waitFor();
    expect(await callAgent('greeter')).toMatchObject({ agent_version: 'v1' });
  });

  it('saves a draft callers do not get; Publish makes the next call use it; rolls back', async () => {
    await page.reload();
    await page.getByLabel('Instructions').fill('Always greet in French.');
    await page.getByLabel('Change note').fill('French');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('status').getByText('Saved draft version 2').waitFor();
    expect(await callAgent('greeter')).toMatchObject({ agent_version: 'v1' });
    expect(systemPromptOfLastCall()).toContain('Always greet warmly.');
    expect(await callAgent('greeter@2')).toMatchObject({ agent_version: 'v2' });

    const versions = page.getByRole('table', { name: 'Versions' });
    const statusOf = (version: string, status: string) =>
      versions
        .getByRole('row')
        .filter({ has: page.getByRole('cell', { name: version, exact: true }) })
        .getByRole('cell', { name: status, exact: true });
    await statusOf('v2', 'draft').waitFor();
    // Cancel changes nothing, and focus goes back to the button that opened the dialog.
    const publish = page.getByRole('button', { name: 'Publish v2' });
    await publish.click();
    await page.getByRole('dialog', { name: 'Publish v2?' }).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect(page.locator(':focus').getAttribute('aria-label')).resolves.toBe('Publish v2');
    expect(await callAgent('greeter')).toMatchObject({ agent_version: 'v1' });

    await publish.click();
    await page.getByRole('dialog', { name: 'Publish v2?' }).getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('status').getByText('Version 2 is published.').waitFor();
    await statusOf('v2', 'published').waitFor();
    expect(await callAgent('greeter')).toMatchObject({ agent_version: 'v2' });
    expect(systemPromptOfLastCall()).toContain('Always greet in French.');
    await page.getByLabel('Changes from v1 to v2').getByText('+ instructions: Always greet in French.').waitFor();
    await page.getByRole('table', { name: 'History' }).getByText('published v2 (was v1)').waitFor();

    await page.getByRole('button', { name: 'Roll back to v1' }).click();
    await page.getByRole('dialog', { name: 'Roll back to v1?' }).getByRole('button', { name: 'Roll back' }).click();
    await statusOf('v1', 'published').waitFor();
    expect(await callAgent('greeter')).toMatchObject({ agent_version: 'v1' });
    expect(systemPromptOfLastCall()).toContain('Always greet warmly.');
  });

  it('stages a version for a share of conversations, then promotes it', async () => {
    await page.getByRole('button', { name: 'Stage v2' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stage v2?' });
    await dialog.getByLabel('Share of conversations (%)').fill('10');
    await dialog.getByRole('button', { name: 'Stage', exact: true }).click();
    await page.getByRole('status').getByText('Version 2 answers 10% of conversations.').waitFor();
    const versions = page.getByRole('table', { name: 'Versions' });
    await versions.getByRole('cell', { name: 'staged 10%', exact: true }).waitFor();
    await page.getByText('version 2 staged for 10% of conversations').waitFor();

    await page.getByRole('button', { name: 'Promote v2' }).click();
    await page.getByRole('dialog', { name: 'Promote v2?' }).getByRole('button', { name: 'Promote', exact: true }).click();
    await page.getByRole('status').getByText('Version 2 is promoted').waitFor();
    expect(await callAgent('greeter')).toMatchObject({ agent_version: 'v2' });
    await page.getByRole('table', { name: 'History' }).getByText('promoted v2 to every conversation').waitFor();
  });

  it('duplicates a file agent into an editable console agent', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'Open agent echo' }).click();
    await page.getByText('A file agent (read-only here)').waitFor();
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.getByLabel('New agent id').fill('echo-mine');
    await page.getByRole('dialog', { name: 'Duplicate agent' }).getByRole('button', { name: 'Duplicate' }).click();
    await page.getByRole('heading', { name: 'Agent echo-mine' }).waitFor();
    await page.getByRole('form', { name: 'Agent editor' }).waitFor();
    expect(await callAgent('echo-mine')).toMatchObject({ agent_version: 'v1' });
  });

  it('runs the playground on a tool-using turn and draws the tool and its result, then branches', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByLabel('Agent id').fill('clock');
    await page.getByLabel('Name').fill('Clock');
    await page.getByLabel('Model', { exact: true }).selectOption('openai/test-tool');
    await page.getByLabel('Instructions').fill('Tell the time with the tool.');
    await page
      .getByRole('group', { name: 'Tools' })
      .getByLabel(/current_time/)
      .check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Agent clock' }).waitFor();

    const playground = page.getByRole('region', { name: 'Playground' });
    await playground.getByLabel('Message').fill('What time is it?');
    await playground.getByRole('button', { name: 'Send' }).click();
    const tool = playground.getByRole('group', { name: 'Tool call current_time' });
    await tool.waitFor();
    await playground.getByText(/completed · \d+ in \/ \d+ out tokens/).waitFor();
    const result = (await tool.getByLabel('Result').textContent()) ?? '';
    expect(result).toMatch(/\d{4}-\d{2}-\d{2}/);
    await expect(playground.getByText(/Tool current_time returned/).count()).resolves.toBeGreaterThan(0);

    await playground.getByRole('button', { name: 'Edit message: What time is it?' }).click();
    await playground.getByLabel('Edited message').fill('And now?');
    await playground.getByRole('button', { name: 'Send edit' }).click();
    await playground.getByText('2/2').waitFor();
    await playground.getByRole('button', { name: 'Previous branch' }).click();
    await playground.getByText('1/2').waitFor();
    await playground.getByText('What time is it?').waitFor();
  });

  it('uploads a document to a new collection and finds it with the search box', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'Knowledge' }).click();
    await page.getByLabel('Collection name').fill('guides');
    await page.getByRole('button', { name: 'Create collection' }).click();
    await page
      .getByLabel('Upload document to guides')
      .setInputFiles({ name: 'kettles.md', mimeType: 'text/markdown', buffer: Buffer.from('# Kettles\n\nA kettle may be returned within 45 days for a refund.\n') });
    await page
      .getByRole('status')
      .getByText(/Indexed kettles\.md: \d+ chunks/)
      .waitFor();
    await page.getByRole('table', { name: 'Documents in guides' }).getByRole('cell', { name: 'kettles.md', exact: true }).waitFor();
    await page.getByLabel('Search knowledge').fill('kettle refund');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const hits = page.getByRole('list', { name: 'Retrieved chunks' });
    await hits.getByText('45 days').waitFor();
    await expect(hits.textContent()).resolves.toMatch(/guides\/kettles\.md.*score \d\.\d{4}/);
  });

  it('logged no errors in the browser console', () => {
    expect(errors).toEqual([]);
  });
});
