import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';

/** Thumbs on a playground answer, then the feedback on the run page, in the rated runs and summed on the agent page. */
const enabled = browserAvailable();
const PASSWORD = 'a browser password';
const SCREENSHOTS = process.env.JUNCTION_SCREENSHOTS ? join(import.meta.dirname, '../../docs/screenshots') : undefined;
const folders = runtimeFolders({ parrot: 'name: Parrot\nmodel: openai/test-echo\ninstructions: Repeat what you hear.\n' });
let gateway: GatewayHarness;
let browser: Browser;
let page: Page;
let errors: string[];

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** What axe finds wrong inside the element `selector` names, in the page's current theme. */
async function axeViolations(selector: string): Promise<string[]> {
  await page.locator(selector).first().waitFor();
  await page.addScriptTag({ content: AXE_SOURCE });
  // A string: it runs in the page, where axe and the DOM are (this file is compiled without DOM types).
  return page.evaluate<string[]>(`axe.run({ include: [${JSON.stringify(selector)}] }, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map((violation) => violation.id + ': ' + violation.help + ' ' + violation.nodes.map((node) => JSON.stringify(node.target)).join(' ')))`);
}

beforeAll(async () => {
  if (!enabled) return;
  gateway = await startGateway(folders.env);
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '25', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: PASSWORD, role: 'owner' });
  browser = await launchBrowser();
  // axe is added to the page as an inline script, which the console's CSP refuses otherwise.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: gateway.baseUrl, bypassCSP: true });
  page = await context.newPage();
  errors = collectErrors(page);
});
afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await gateway?.close();
  folders.remove();
});

describe.skipIf(!enabled)('feedback in Chromium', () => {
  it('rates a playground answer with a thumb and a comment, shown on its run page', async () => {
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    await page.goto('/agents/parrot');
    const playground = page.getByRole('region', { name: 'Playground' });
    await playground.getByLabel('Message', { exact: true }).fill('polly wants feedback');
    await playground.getByRole('button', { name: 'Send' }).click();
    const rating = playground.getByRole('form', { name: 'Feedback on this answer' });
    const up = rating.getByRole('button', { name: 'Good answer' });
    await up.waitFor();
    expect(await up.getAttribute('aria-pressed')).toBe('false');
    await up.click();
    expect(await up.getAttribute('aria-pressed')).toBe('true');
    await rating.getByLabel('Comment (optional)').fill('Repeated it word for word.');
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await playground.screenshot({ path: join(SCREENSHOTS, 'playground-feedback.png') });
    }
    await rating.getByRole('button', { name: 'Send feedback' }).click();
    await playground.getByRole('status').filter({ hasText: 'Feedback sent: good answer, with a comment.' }).waitFor();

    await playground.getByRole('link', { name: 'See the run' }).click();
    const feedback = page.getByRole('region', { name: 'Feedback', exact: true });
    const row = feedback.getByRole('table', { name: 'Feedback', exact: true }).getByRole('row').filter({ hasText: 'Repeated it word for word.' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Thumbs up');
    expect(errors).toEqual([]);
  });

  it('lists the rated run by its rating, and sums the feedback for the version on the agent page', async () => {
    await page.goto('/runs');
    const rated = page.getByRole('region', { name: 'Rated runs' });
    await rated.getByLabel('Rating').selectOption('down');
    await rated.getByText('No feedback matches.').waitFor();
    await rated.getByLabel('Rating').selectOption('up');
    await rated.getByLabel('Agent').selectOption('parrot');
    await rated.getByRole('row').filter({ hasText: 'Thumbs up' }).getByRole('link').click();
    await page.getByRole('table', { name: 'Feedback', exact: true }).getByRole('row').filter({ hasText: 'Repeated it word for word.' }).waitFor();

    await page.goto('/agents/parrot');
    // The playground brings the conversation back, and the answer says how it was rated.
    await page.getByRole('region', { name: 'Playground' }).getByRole('status').filter({ hasText: 'Rated: good answer, with a comment.' }).waitFor();
    const summary = page.getByRole('table', { name: 'Feedback by version' });
    const versionRow = summary.getByRole('row').nth(1);
    await versionRow.waitFor();
    const cells = await versionRow.getByRole('cell').allTextContents();
    // Version (the file's content hash), entries, mean score, up, down.
    expect(cells.slice(1, 5)).toEqual(['1', '1.00', '1', '0']);
    expect(cells[0]).toMatch(/^[0-9a-f]{16}$/);
    expect(errors).toEqual([]);
  });

  it('draws the thumbs, the run page feedback, the rated runs and the version table without an axe violation, light or dark', async () => {
    const parts: Array<[string, string]> = [
      ['/runs', 'section[aria-labelledby="rated-runs-title"]'],
      ['/agents/parrot', 'section[aria-labelledby="agent-feedback-title"]'],
    ];
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [path, selector] of parts) {
        await page.goto(path);
        await page.locator(`${selector} table`).waitFor();
        found.push(...(await axeViolations(selector)).map((violation) => `${path} (${scheme}) ${violation}`));
      }
      // A fresh answer with its thumbs open, and the run page of a rated run.
      await page.goto('/agents/parrot');
      const playground = page.getByRole('region', { name: 'Playground' });
      const forms = playground.getByRole('form', { name: 'Feedback on this answer' });
      await playground.getByRole('button', { name: 'New conversation' }).click();
      await expect.poll(() => forms.count()).toBe(0);
      await playground.getByLabel('Message', { exact: true }).fill(`rate me in ${scheme}`);
      await playground.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => forms.count()).toBe(1);
      const rating = forms.last();
      await rating.getByRole('button', { name: 'Bad answer' }).click();
      await rating.getByLabel('Comment (optional)').waitFor();
      found.push(...(await axeViolations('form[aria-label="Feedback on this answer"]')).map((violation) => `thumbs (${scheme}) ${violation}`));
      await rating.getByRole('button', { name: 'Send feedback' }).click();
      await playground.getByRole('status').filter({ hasText: 'Feedback sent: bad answer.' }).last().waitFor();
      await playground.getByRole('link', { name: 'See the run' }).last().click();
      await page.getByRole('table', { name: 'Feedback', exact: true }).waitFor();
      found.push(...(await axeViolations('section[aria-labelledby="run-feedback-title"]')).map((violation) => `run page (${scheme}) ${violation}`));
    }
    expect(found).toEqual([]);
    expect(errors).toEqual([]);
  });
});
