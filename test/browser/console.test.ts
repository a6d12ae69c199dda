import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { issueSetupLink } from '../../src/console/session-routes.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * The console in a real browser (Debian's Chromium through playwright-core): set up the
 * owner, sign in and out, create each key kind and use the plain key against the API,
 * see the call in Usage and in the Overview chart, switch accounts and see nothing of
 * the other. Controls are found by role and accessible name, as people find them.
 */
const enabled = browserAvailable();
const PASSWORD = 'a browser password';
const SCREENSHOTS = process.env.JUNCTION_SCREENSHOTS ? join(import.meta.dirname, '../../docs/screenshots') : undefined;
let gateway: GatewayHarness;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: string[];
let otherAccountId: string;

beforeAll(async () => {
  if (!enabled) return;
  const fixtures = join(import.meta.dirname, '../fixtures/agents-e2e');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(fixtures, 'agents'), JUNCTION_TOOLS_DIR: join(fixtures, 'tools'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '25', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'EUR' });
  otherAccountId = ((await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'second team' })) as { data: { id: string } }).data.id;
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: gateway.baseUrl });
  page = await context.newPage();
  errors = collectErrors(page);
});
afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await gateway?.close();
});

async function createdKey(): Promise<string> {
  const dialog = page.getByRole('dialog', { name: 'Your new key' });
  await dialog.waitFor();
  const key = (await dialog.getByLabel('New key').textContent()) ?? '';
  await dialog.getByRole('button', { name: 'Done' }).click();
  return key.trim();
}

describe.skipIf(!enabled)('the console in Chromium', () => {
  it('creates the owner through the setup link and lands on the Overview', async () => {
    const link = (await issueSetupLink(gateway.services.db, gateway.baseUrl, new Date())) as string;
    await page.goto(link);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create owner' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    for (const name of ['Overview', 'Keys', 'Usage', 'Models', 'Agents', 'Settings']) await expect(page.getByRole('link', { name }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Sign out' }).isVisible()).resolves.toBe(true);
  });

  it('signs out, refuses a wrong password, signs in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('wrong');
    expect((await context.cookies()).some((cookie) => cookie.name === 'junction_session')).toBe(false);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const cookie = (await context.cookies()).find((entry) => entry.name === 'junction_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  });

  it('creates a model key whose plain key calls models, and sees the call in Usage and the Overview chart', async () => {
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    const form = page.getByRole('dialog', { name: 'Create key' });
    await form.getByLabel('Name').fill('browser app');
    await form.getByLabel('Daily limit (USD)').fill('3');
    await form.getByRole('button', { name: 'Create' }).click();
    const key = await createdKey();
    expect(key).toMatch(/^sk-jn-/);
    await page.getByRole('table', { name: 'Model keys' }).getByRole('cell', { name: 'browser app', exact: true }).waitFor();

    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'openai/test-echo', messages: [{ role: 'user', content: 'hello from the console test' }] });
    expect(completion.choices[0]?.message.content).toBe('hello from the console test');

    await page.getByRole('link', { name: 'Usage' }).click();
    const log = page.getByRole('table', { name: 'Usage log' });
    await log.getByRole('cell', { name: 'browser app', exact: true }).waitFor();
    await log
      .getByRole('button', { name: /^Details of / })
      .first()
      .click();
    const detail = page.getByRole('dialog', { name: 'Call details' });
    await expect(detail.textContent()).resolves.toContain('openai/test-echo');
    await page.keyboard.press('Escape');

    await page.getByRole('link', { name: 'Overview' }).click();
    // The chart's data, as a screen reader gets it; refreshed once the new call's spend is in.
    await page
      .getByRole('list', { name: 'Spend per day by key data' })
      .getByText(/browser app \$/)
      .waitFor({ state: 'attached' });
    await page
      .getByRole('list', { name: 'Spend per day by model data' })
      .getByText(/openai\/test-echo \$/)
      .waitFor({ state: 'attached' });
    await expect(page.getByRole('region', { name: 'Balance' }).textContent()).resolves.toContain('EUR');
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'overview.png') });
    }
  });

  it('creates a provisioning key and an agent key that work against their APIs', async () => {
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('button', { name: 'Create provisioning key' }).click();
    await page.getByRole('dialog', { name: 'Create provisioning key' }).getByLabel('Name').fill('ci robot');
    await page.getByRole('dialog', { name: 'Create provisioning key' }).getByRole('button', { name: 'Create' }).click();
    const provisioning = await createdKey();
    expect((await fetch(`${gateway.baseUrl}/v1/keys`, { headers: { authorization: `Bearer ${provisioning}` } })).status).toBe(200);
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'keys.png') });

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Create agent key' }).click();
    await page.getByRole('dialog', { name: 'Create agent key' }).getByLabel('Name').fill('support bot');
    await page.getByRole('dialog', { name: 'Create agent key' }).getByRole('button', { name: 'Create' }).click();
    const agentKey = await createdKey();
    const models = await fetch(`${gateway.baseUrl}/agents/v1/models`, { headers: { authorization: `Bearer ${agentKey}` } });
    expect(models.status).toBe(200);

    await page.getByRole('button', { name: 'Revoke support bot' }).click();
    await page.getByRole('dialog', { name: 'Revoke support bot?' }).getByRole('button', { name: 'Revoke' }).click();
    // The dialog closes only once the server confirmed the revocation; then the list is empty.
    await page.getByRole('dialog', { name: 'Revoke support bot?' }).waitFor({ state: 'detached' });
    await page.getByRole('region', { name: 'Agent keys' }).getByText('None yet.').waitFor();
    expect((await fetch(`${gateway.baseUrl}/agents/v1/models`, { headers: { authorization: `Bearer ${agentKey}` } })).status).toBe(401);
  });

  it('switches to another account and sees nothing of the first', async () => {
    await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: PASSWORD, account: otherAccountId, role: 'admin' });
    await page.reload();
    await page.getByLabel('Account').selectOption(otherAccountId);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByText('No model keys yet').waitFor();
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByText('No calls match.').waitFor();
  });

  it('works at 390 px wide', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'Models' }).click();
    await page.getByRole('table', { name: 'Models' }).waitFor();
    // Tables scroll inside their card; the page itself never scrolls sideways.
    const overflow = await page.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    expect(overflow).toBeLessThanOrEqual(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('logged no errors in the browser console', () => {
    expect(errors).toEqual([]);
  });
});
