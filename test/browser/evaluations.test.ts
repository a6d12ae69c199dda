import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { createDatasetRepository } from '../../src/evaluation/dataset-repository.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { signIn } from '../support/console-session.ts';
import { type GatewayHarness, startGateway } from '../support/gateway-harness.ts';

/** The Evaluations tab of an agent: start an experiment of the draft against the published version, read it side by side, the regression first. */
const enabled = browserAvailable();
const PASSWORD = 'a browser password';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SCREENSHOTS = process.env.JUNCTION_SCREENSHOTS ? join(import.meta.dirname, '../../docs/screenshots') : undefined;
let gateway: GatewayHarness;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  if (!enabled) return;
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: PASSWORD, role: 'owner' });
  const owner = await signIn(gateway.app, 'owner@example.com', PASSWORD);
  // Published v1 echoes the question; the draft v2 answers with its first word only.
  const agent = { name: 'Support', model: 'openai/test-echo', instructions: 'Answer the customer.' };
  await owner.request('PUT', '/console/api/agents/support', { definition: agent });
  await owner.request('PUT', '/console/api/agents/support', { definition: { ...agent, max_output_tokens: 1 } });
  const datasets = createDatasetRepository(gateway.services.db);
  const dataset = await datasets.create(gateway.services.defaultAccount.id, { name: 'refunds' });
  await datasets.addCases(gateway.services.defaultAccount.id, dataset.id, [
    { input: 'refund please', expect: { must_contain: ['refund'] } },
    { input: 'where is my order', expect: { must_contain: ['order'] } },
    { input: 'cancel my plan', expect: { must_contain: ['cancel'] } },
  ]);
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, baseURL: gateway.baseUrl, bypassCSP: true });
  page = await context.newPage();
  errors = collectErrors(page);
}, 60_000);
afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await gateway?.close();
});

/** axe-core's violations on the page in view, in the light and the dark theme (injected inline: the context bypasses the CSP for it). */
async function axeViolations(): Promise<unknown[]> {
  const found: unknown[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.addScriptTag({ content: AXE_SOURCE });
    // A string: it runs in the page (this file is compiled without DOM types).
    found.push(...(await page.evaluate<unknown[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map((violation) => violation.id + ': ' + violation.help))`)));
  }
  return found;
}

describe.skipIf(!enabled)('evaluations in Chromium', () => {
  it('starts an experiment from the agent’s Evaluations tab and lists the regression first', async () => {
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    await page.goto('/agents/support/evaluations');
    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Evaluations' }).waitFor();
    expect(await page.getByRole('link', { name: 'Evaluations' }).getAttribute('aria-current')).toBe('page');
    const form = page.getByRole('form', { name: 'Start an evaluation' });
    await form.getByLabel('Dataset').getByRole('option', { name: 'refunds (3 cases)' }).waitFor({ state: 'attached' });
    expect(await axeViolations()).toEqual([]);
    await form.getByLabel('Version').fill('draft');
    await form.getByLabel('Compare with').selectOption({ label: 'The published version' });
    await form.getByLabel('Dataset').selectOption({ label: 'refunds (3 cases)' });
    await form.getByRole('checkbox', { name: /Tool calls/ }).uncheck();
    await form.getByLabel('Judge rubric').fill('The answer repeats the "order" the customer asked about.');
    await form.getByLabel('Judge model').fill('openai/test-judge');
    await form.getByRole('button', { name: 'Start experiment' }).click();

    await page.getByRole('heading', { name: 'draft (v2) against published (v1) on refunds' }).waitFor();
    await page.getByRole('status').filter({ hasText: '1 regression' }).waitFor();
    const scores = page.getByRole('table', { name: 'Scores compared' });
    expect(await scores.getByRole('row', { name: /^contains/ }).textContent()).toContain('1.00 [1.00, 1.00]');
    expect(await scores.getByRole('row', { name: /^judge/ }).count()).toBe(1);

    const rows = page.getByRole('table', { name: 'Cases compared' }).getByRole('row');
    // The header, then the regression, then the other cases in dataset order.
    const first = rows.nth(1);
    expect(await first.getByRole('rowheader').textContent()).toBe('Regression where is my order');
    expect(await rows.nth(2).getByRole('rowheader').textContent()).toContain('refund please');
    await first.getByText('Line diff').click();
    expect(await first.getByLabel('Answer changes from baseline to candidate').textContent()).toBe('- where is my order\n+ where\n');
    await first.getByRole('link', { name: 'Open run of the candidate for “where is my order”' }).waitFor();
    expect(await axeViolations()).toEqual([]);
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'experiment.png'), fullPage: true });
    }

    // The candidate's evaluation, and from it the usage log, where its calls are evaluation traffic.
    await page.getByRole('link', { name: 'Candidate evaluation' }).click();
    await page.getByRole('status').filter({ hasText: 'Completed: 3 of 3 cases' }).waitFor();
    expect(await page.getByRole('table', { name: 'Case results' }).getByRole('row').count()).toBe(4);
    await page.getByRole('link', { name: 'evaluation usage of this agent' }).click();
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
    expect(await page.getByLabel('Endpoint').inputValue()).toBe('agents.evaluation');
    await page.getByRole('cell', { name: 'agents.evaluation', exact: true }).first().waitFor();
    expect(errors).toEqual([]);
  }, 60_000);
});
