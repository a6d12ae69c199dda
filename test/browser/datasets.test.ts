import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';

/** The Datasets page: a dataset made, a case added from a run page and from a conversation turn, one by hand, one edited, a JSONL file imported (and a bad one refused). */
const enabled = browserAvailable();
const PASSWORD = 'a browser password';
const folders = runtimeFolders({ echo: 'name: Echo\nmodel: openai/test-echo\ninstructions: Repeat.\n' });
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
    body: JSON.stringify({ model: 'echo', input: 'where is my parcel' }),
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

const caseRows = () => page.getByRole('table', { name: 'Cases of refunds' }).getByRole('row');

describe.skipIf(!enabled)('datasets in Chromium', () => {
  it('creates a dataset from the Datasets page', async () => {
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Datasets' }).click();
    await page.getByRole('heading', { name: 'Datasets', level: 1 }).waitFor();
    await page.getByLabel('Dataset name').fill('refunds');
    await page.getByLabel('Description').fill('Questions about refunds');
    await page.getByRole('button', { name: 'Create dataset' }).click();
    await page.getByRole('table', { name: 'Datasets' }).getByRole('link', { name: 'refunds' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('adds a case from a run page and sees it in the dataset', async () => {
    await page.goto(`/runs/${responseId}`);
    await page.getByRole('heading', { name: 'Run', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Add to dataset' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to dataset' });
    await dialog.getByLabel('Dataset', { exact: true }).selectOption({ label: 'refunds (0 cases)' });
    await dialog.getByRole('button', { name: 'Add case' }).click();
    await dialog.getByRole('status').filter({ hasText: 'Added to refunds' }).waitFor();
    await dialog.getByRole('link', { name: 'refunds' }).click();

    await page.getByRole('heading', { name: 'refunds', level: 1 }).waitFor();
    const row = caseRows().filter({ hasText: 'where is my parcel' });
    await row.waitFor();
    expect(await row.getByRole('link', { name: 'run' }).getAttribute('href')).toMatch(/^\/runs\/run_/);
    expect(errors).toEqual([]);
  });

  it('adds a case by hand and edits it', async () => {
    const form = page.getByRole('form', { name: 'New case' });
    await form.getByLabel('Input', { exact: true }).fill('Can I return a lamp?');
    await form.getByLabel('Reference answer').fill('Within 30 days.');
    await form.getByLabel('Tags', { exact: true }).fill('refunds, lamps');
    await form.getByRole('button', { name: 'Add case' }).click();
    const row = caseRows().filter({ hasText: 'Can I return a lamp?' });
    await row.waitFor();
    expect(await row.textContent()).toContain('refunds, lamps');

    await row.getByRole('button', { name: /^Edit case Can I return a lamp/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit case' });
    await dialog.getByLabel('Reference answer').fill('Within 60 days.');
    await dialog.getByRole('button', { name: 'Save case' }).click();
    await caseRows().filter({ hasText: 'Within 60 days.' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('imports a JSONL file, and refuses one with a bad line naming it', async () => {
    const upload = page.getByLabel('Import JSONL into refunds');
    const lines = [JSON.stringify({ input: 'first imported' }), JSON.stringify({ input: 'second imported', reference: 'ok', tags: ['import'] })].join('\n');
    await upload.setInputFiles({ name: 'cases.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines) });
    await page.getByRole('status').filter({ hasText: 'Imported 2 cases from cases.jsonl.' }).waitFor();
    await caseRows().filter({ hasText: 'second imported' }).waitFor();

    await upload.setInputFiles({ name: 'bad.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(`${JSON.stringify({ input: 'fine' })}\n{"reference": "no input"}\n`) });
    const alert = page.getByRole('alert').filter({ hasText: 'Line 2' });
    await alert.waitFor();
    await page.getByRole('heading', { name: 'Cases (4)' }).waitFor();
    expect(await caseRows().filter({ hasText: 'fine' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Export JSONL' }).getAttribute('href')).toMatch(/^\/console\/api\/datasets\/ds_[0-9a-f]+\/export$/);
    // The refused file's 400 is logged by the browser as a failed resource; nothing else may be.
    expect(errors.filter((error) => !/status of 400/.test(error))).toEqual([]);
  });

  it('adds a conversation turn to the dataset from the conversation page', async () => {
    const stored = await gateway.services.db.query<{ id: string }>('SELECT id FROM conversations ORDER BY position LIMIT 1');
    await page.goto(`/agents/echo/conversations/${stored.rows[0]?.id}`);
    await page.getByRole('button', { name: 'Add to dataset: turn 1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to dataset' });
    await dialog.getByRole('button', { name: 'Add case' }).click();
    await dialog.getByRole('status').filter({ hasText: 'Added to refunds' }).waitFor();
    await dialog.getByRole('link', { name: 'refunds' }).click();
    await page.getByRole('heading', { name: 'Cases (5)' }).waitFor();
    // The heading counts the cases before the table has drawn them all.
    const parcels = caseRows().filter({ hasText: 'where is my parcel' });
    await parcels.nth(1).waitFor();
    expect(await parcels.count()).toBe(2);
    expect(errors.filter((error) => !/status of 400/.test(error))).toEqual([]);
  });
});
