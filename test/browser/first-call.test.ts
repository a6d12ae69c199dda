import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueSetupLink } from '../../src/console/session-routes.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * Issue 66's "done when" in Chromium, with no command line anywhere: a brand-new server,
 * its setup link, the owner grants credit from the Credits page, creates a key, copies the
 * curl snippet with the key filled in, makes that call, and sees it in the Overview and
 * in Usage, the first-run checklist ticking each step off on the way.
 */
const enabled = browserAvailable();
const PASSWORD = 'a first call password';
const SCREENSHOTS = process.env.JUNCTION_SCREENSHOTS ? join(import.meta.dirname, '../../docs/screenshots') : undefined;
let gateway: GatewayHarness;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: string[];

beforeAll(async () => {
  if (!enabled) return;
  gateway = await startGateway();
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: gateway.baseUrl });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gateway.baseUrl });
  page = await context.newPage();
  errors = collectErrors(page);
});
afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await gateway?.close();
});

const checklist = () => page.getByRole('region', { name: 'Get started' });
const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

describe.skipIf(!enabled)('from the setup link to a first call, in the console alone', () => {
  it('sets up the owner, who is shown the way to a first call', async () => {
    const link = (await issueSetupLink(gateway.services.db, gateway.baseUrl, new Date())) as string;
    await page.goto(link);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create owner' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await expect(checklist().textContent()).resolves.toContain('0 of 4 steps done');
    await expect(checklist().getByText('To do: Add credit').count()).resolves.toBe(1);
  });

  it('grants credit from the Credits page, after a confirmation, recorded with who granted it', async () => {
    await checklist().getByRole('link', { name: 'Add credit' }).click();
    await page.getByRole('heading', { name: 'Credits', level: 1 }).waitFor();
    await expect(page.title()).resolves.toBe('Credits · Junction');
    const form = page.getByRole('region', { name: 'Grant credit' });
    await expect(form.getByLabel('Account').locator('option:checked').textContent()).resolves.toMatch(/^default \(default\)/);
    await form.getByLabel('Amount').fill('ten');
    await form.getByRole('button', { name: 'Grant credit' }).click();
    await form.getByRole('alert').filter({ hasText: 'Enter an amount above 0' }).waitFor();
    await form.getByLabel('Amount').fill('10');
    await form.getByLabel('Currency').selectOption('USD');
    await form.getByLabel('Note (optional)').fill('first credit');
    await form.getByRole('button', { name: 'Grant credit' }).click();
    const confirm = page.getByRole('dialog', { name: 'Grant this credit?' });
    await expect(confirm.textContent()).resolves.toContain('Grant 10 USD to default');
    await confirm.getByRole('button', { name: 'Grant', exact: true }).click();
    await form.getByRole('status').filter({ hasText: 'Granted 10 USD ($10.00) to default. Its balance is now $10.00.' }).waitFor();
    const grants = page.getByRole('table', { name: 'Credit grants' });
    await grants.getByRole('cell', { name: 'owner@example.com' }).waitFor();
    await expect(grants.getByRole('cell', { name: 'first credit' }).count()).resolves.toBe(1);
    await expect(page.getByRole('region', { name: 'Credit balance' }).textContent()).resolves.toContain('$10.00');
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'credits.png'), fullPage: true });
    }
  });

  it('creates a key, copies the curl snippet with it, and the call it makes appears in the Overview and Usage', async () => {
    await nav('Overview').click();
    await checklist().getByText('Done: Add credit').waitFor();
    await checklist().getByRole('link', { name: 'Create a key' }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    const form = page.getByRole('dialog', { name: 'Create key' });
    await form.getByLabel('Name').fill('first app');
    await form.getByRole('button', { name: 'Create' }).click();

    const notice = page.getByRole('dialog', { name: 'Your new key' });
    const plainKey = ((await notice.getByLabel('New key').textContent()) ?? '').trim();
    expect(plainKey).toMatch(/^sk-jn-/);
    await notice.getByLabel('Model').selectOption('openai/test-echo');
    await expect(notice.getByRole('tab', { name: 'curl' }).getAttribute('aria-selected')).resolves.toBe('true');
    // The tabs are one stop: arrows move between them.
    await notice.getByRole('tab', { name: 'curl' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect(notice.getByRole('tab', { name: 'OpenAI SDK' }).getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('ArrowLeft');
    await notice.getByRole('button', { name: 'Copy curl snippet' }).click();
    await notice.getByRole('button', { name: 'Copied' }).waitFor();
    const snippet = await page.evaluate<string>('navigator.clipboard.readText()');
    await notice.getByRole('button', { name: 'Done' }).click();

    const url = /^curl (\S+) \\/.exec(snippet)?.[1] ?? '';
    const key = /Bearer (\S+)"/.exec(snippet)?.[1] ?? '';
    const body = /-d '(.+)'$/m.exec(snippet)?.[1] ?? '';
    expect({ url, key }).toEqual({ url: `${gateway.baseUrl}/v1/chat/completions`, key: plainKey });
    const answer = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('Hello');

    await nav('Overview').click();
    // Every step done: the checklist goes away once the call is in the log (it asks every few seconds).
    await page
      .getByRole('list', { name: 'Spend per day by key data' })
      .getByText(/first app \$/)
      .waitFor({ state: 'attached', timeout: 15_000 });
    await checklist().waitFor({ state: 'detached', timeout: 15_000 });
    const balance = (await page.getByRole('region', { name: 'Balance' }).locator('.stat-value').textContent()) ?? '';
    // Shown to the micro-dollar: a call of a fraction of a cent moves it.
    expect(balance).toMatch(/^\$9\.\d{2,6}$/);

    await nav('Usage').click();
    await page.getByRole('table', { name: 'Usage log' }).getByRole('cell', { name: 'first app', exact: true }).waitFor();
    expect(errors).toEqual([]);
  });
});
