import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';

/**
 * Every console page passes axe-core with no violations, in the light and in the dark
 * theme, signed in as an owner of an account with data (credit, keys, calls, an agent
 * with a conversation and a run), and the signed-out pages too; the theme follows the
 * system until one is picked, and the pick is kept.
 */
const enabled = browserAvailable();
const PASSWORD = 'an accessible password';
const SCREENSHOTS = process.env.JUNCTION_SCREENSHOTS ? join(import.meta.dirname, '../../docs/screenshots') : undefined;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const folders = runtimeFolders({ helper: 'name: Helper\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\nmax_steps: 4\n' });
let gateway: GatewayHarness;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: string[];
let conversationId = '';

type Violation = { id: string; help: string; nodes: string[] };

beforeAll(async () => {
  if (!enabled) return;
  gateway = await startGateway(folders.env);
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '25', currency: 'USD', note: 'for the accessibility test' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'EUR' });
  await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'second team' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: PASSWORD, role: 'owner' });
  const modelKey = await gateway.key('model', { name: 'web app' });
  for (const content of ['first call', 'second call']) {
    await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${modelKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/test-echo', messages: [{ role: 'user', content }] }),
    });
  }
  const agentKey = await gateway.key('agent', { name: 'support bot' });
  const chat = await fetch(`${gateway.baseUrl}/agents/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'helper', messages: [{ role: 'user', content: 'shout hello' }] }),
  });
  conversationId = ((await chat.json()) as { conversation_id: string }).conversation_id;
  await gateway.settle();
  browser = await launchBrowser();
  // axe-core is injected as an inline script, which the console's CSP rightly refuses.
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: gateway.baseUrl, bypassCSP: true });
  page = await context.newPage();
  errors = collectErrors(page);
});
afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await gateway?.close();
  folders.remove();
});

async function violations(): Promise<Violation[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  // A string: it runs in the page, where axe and the DOM are (this file is compiled without DOM types).
  return page.evaluate<Violation[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map((violation) => ({ id: violation.id, help: violation.help, nodes: violation.nodes.slice(0, 5).map((node) => JSON.stringify(node.target)) })))`);
}

const theme = (): Promise<unknown> => page.evaluate('document.documentElement.dataset.theme');

/** Opens a page and waits until it has drawn its data (its heading, no "Loading …" left, the network quiet). */
async function open(path: string): Promise<void> {
  await page.goto(path);
  await page
    .locator('h1')
    .first()
    .waitFor({ timeout: 10_000 })
    .catch(async () => {
      throw new Error(`${path} drew no heading: ${(await page.locator('main').textContent())?.slice(0, 300)}`);
    });
  await page.waitForLoadState('networkidle');
  await expect.poll(() => page.getByText(/^Loading .*…$/).count()).toBe(0);
}

/** Both themes of the page in view: the system's dark setting, then light. */
async function inBothThemes(path: string): Promise<Record<string, Violation[]>> {
  const found: Record<string, Violation[]> = {};
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect.poll(theme).toBe(scheme);
    const list = await violations();
    if (list.length > 0) found[`${path} (${scheme})`] = list;
  }
  return found;
}

const SIGNED_IN_PAGES = [
  '/',
  '/keys',
  '/usage',
  '/credits',
  '/models',
  '/agents',
  '/agents/new',
  '/agents/helper',
  '/agents/helper/conversations',
  '/agents/helper/evaluations',
  '/runs',
  '/knowledge',
  '/datasets',
  '/settings',
];

describe.skipIf(!enabled)('the console with axe-core', () => {
  it('finds no violation on the signed-out pages, in either theme', async () => {
    const found: Record<string, Violation[]> = {};
    for (const path of ['/sign-in', '/setup', '/set-password', '/invite', '/no-such-page']) {
      await open(path);
      Object.assign(found, await inBothThemes(path));
    }
    expect(found).toEqual({});
  }, 120_000);

  it('finds no violation on any signed-in page, in either theme', async () => {
    errors.length = 0;
    await page.emulateMedia({ colorScheme: 'light' });
    await open('/sign-in');
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const found: Record<string, Violation[]> = {};
    for (const path of [...SIGNED_IN_PAGES, `/agents/helper/conversations/${conversationId}`]) {
      await open(path);
      Object.assign(found, await inBothThemes(path));
    }
    // A run page, reached as people reach it: from its Usage row.
    await open('/usage');
    await page
      .getByRole('link', { name: /^Run run_/ })
      .first()
      .click();
    await page.getByRole('heading', { name: 'Run', exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    Object.assign(found, await inBothThemes('a run page'));
    expect(found).toEqual({});
    expect(errors).toEqual([]);
  }, 240_000);

  it('keeps the theme picked over the system setting, and follows the system again when asked', async () => {
    errors.length = 0;
    await open('/');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByLabel('Theme').selectOption({ label: 'Dark theme' });
    await expect(theme()).resolves.toBe('dark');
    await page.reload();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await expect(theme()).resolves.toBe('dark');
    await expect(page.getByLabel('Theme').inputValue()).resolves.toBe('dark');
    await expect(page.evaluate('getComputedStyle(document.documentElement).backgroundColor')).resolves.toBe('rgb(11, 17, 32)');
    if (SCREENSHOTS) {
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: join(SCREENSHOTS, 'overview-dark.png') });
    }
    await page.getByLabel('Theme').selectOption({ label: 'Light theme' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(theme()).resolves.toBe('light');
    await page.getByLabel('Theme').selectOption({ label: 'System theme' });
    await expect(theme()).resolves.toBe('dark');
    await expect(page.evaluate("localStorage.getItem('junction.theme')")).resolves.toBeNull();
    expect(errors).toEqual([]);
  });
});
