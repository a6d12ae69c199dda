import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';

/** From a Usage row to the run page of an agent run started through the API: its tool step with its cost, details behind a named disclosure. */
const enabled = browserAvailable();
const PASSWORD = 'a browser password';
const SCREENSHOTS = process.env.JUNCTION_SCREENSHOTS ? join(import.meta.dirname, '../../docs/screenshots') : undefined;
const folders = runtimeFolders({ helper: 'name: Helper\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\nmax_steps: 4\n' });
let gateway: GatewayHarness;
let browser: Browser;
let page: Page;
let errors: string[];
let responseId = '';

beforeAll(async () => {
  if (!enabled) return;
  gateway = await startGateway(folders.env);
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '25', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: PASSWORD, role: 'owner' });
  const key = await gateway.key('agent', { name: 'support bot' });
  const response = await fetch(`${gateway.baseUrl}/agents/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'helper', input: 'shout hello' }),
  });
  responseId = ((await response.json()) as { id: string }).id;
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: gateway.baseUrl });
  page = await context.newPage();
  errors = collectErrors(page);
});
afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await gateway?.close();
  folders.remove();
});

describe.skipIf(!enabled)('the run page in Chromium', () => {
  it('opens a run from its Usage row and shows the tool step with its cost', async () => {
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    await page.getByRole('link', { name: 'Usage' }).first().click();
    await page
      .getByRole('link', { name: /^Run run_/ })
      .first()
      .click();
    await page.getByRole('heading', { name: 'Run', exact: true }).waitFor();
    // The tool call is nested under the model call that asked for it.
    const tool = page
      .getByRole('list', { name: /^Steps under Model call openai\/test-tool/ })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Tool call echo_upper' }) });
    await tool.waitFor();
    expect(await tool.textContent()).toContain('cost $0.002');
    expect(
      await page
        .getByRole('list', { name: 'Run steps' })
        .getByRole('heading', { name: /^Model call openai\/test-tool/ })
        .count(),
    ).toBe(2);

    const disclosure = tool.getByRole('button', { name: /^Show details of Tool call echo_upper/ });
    expect(await disclosure.getAttribute('aria-expanded')).toBe('false');
    await disclosure.click();
    expect(await tool.getByRole('button', { name: /^Hide details of Tool call echo_upper/ }).getAttribute('aria-expanded')).toBe('true');
    expect(await tool.textContent()).toContain('FAKE');
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'run-page.png'), fullPage: true });
    }
    expect(await page.getByRole('term').filter({ hasText: 'Response id' }).count()).toBe(1);
    expect(await page.getByText(responseId).count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });

  it('opens the same run by its response id from the search box', async () => {
    await page.goto('/runs');
    await page.getByLabel('Run, response or call id').fill(responseId);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Tool call echo_upper' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('links a playground answer to its run', async () => {
    await page.goto('/agents/helper');
    const playground = page.getByRole('region', { name: 'Playground' });
    await playground.getByLabel('Message', { exact: true }).fill('shout it');
    await playground.getByRole('button', { name: 'Send' }).click();
    await playground.getByRole('link', { name: 'See the run' }).click();
    await page.getByRole('heading', { name: 'Tool call echo_upper' }).waitFor();
    expect(await page.getByRole('term').filter({ hasText: 'Response id' }).count()).toBe(1);
    expect(errors).toEqual([]);
  });
});
