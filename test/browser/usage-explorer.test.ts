import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueSetupLink } from '../../src/console/session-routes.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The usage explorer in Chromium, in New York's time zone: days picked are New York's
 * days, filters live in the URL (reload and back keep them), a model is found by any part
 * of its name, statuses are the words people use, group-by shows totals and each key's
 * limit, and the CSV holds what the page shows.
 */
const enabled = browserAvailable();
const SCREENSHOTS = process.env.JUNCTION_SCREENSHOTS ? join(import.meta.dirname, '../../docs/screenshots') : undefined;
let server: TestApp;
let baseUrl: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: string[];

// New York is 5 hours behind UTC in November: its 10 November runs from 05:00Z to 05:00Z the next day.
const ROWS = [
  ['s1', '2026-11-10T04:30:00Z', 'openai/gpt-4o-mini', 'success', 'app', null],
  ['s2', '2026-11-10T05:30:05Z', 'openai/gpt-4o-mini', 'upstream_error', 'app', null],
  ['s3', '2026-11-10T15:00:00Z', 'anthropic/claude-sonnet-4-5', 'success', 'bot', 'support'],
  ['s4', '2026-11-11T04:59:59Z', 'openai/gpt-4o', 'rejected', 'app', null],
  ['s5', '2026-11-11T05:00:00Z', 'openai/gpt-4o-mini', 'success', 'app', null],
] as const;

beforeAll(async () => {
  if (!enabled) return;
  server = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent', JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  baseUrl = await server.app.listen({ host: '127.0.0.1', port: 0 });
  await server.key('model', { name: 'app', dailyLimitMicros: 3_000_000 });
  await server.key('agent', { name: 'bot' });
  const keys = new Map((await server.services.db.query<{ id: string; name: string }>("SELECT id, name FROM api_keys WHERE name IN ('app', 'bot')")).rows.map((row) => [row.name, row.id]));
  for (const [id, at, model, status, key, agent] of ROWS) {
    await server.services.db.query(
      `INSERT INTO usage_log (id, account_id, key_id, request_id, endpoint, requested_model, model, status, input_tokens, output_tokens, cost_micros, agent_id, created_at)
       VALUES ($1, $2, $3, 'req', 'chat.completions', $4, $5, $6, 10, 5, 1000, $7, $8)`,
      [id, server.services.defaultAccount.id, keys.get(key), model, status === 'rejected' ? null : model, status, agent, at],
    );
  }
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: baseUrl, timezoneId: 'America/New_York', locale: 'en-GB' });
  page = await context.newPage();
  errors = collectErrors(page);
  const link = (await issueSetupLink(server.services.db, baseUrl, new Date())) as string;
  await page.goto(link);
  await page.getByLabel('Email').fill('owner@example.com');
  await page.getByLabel('Password').fill('a browser password');
  await page.getByRole('button', { name: 'Create owner' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}, 60_000);
afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await server?.close();
});

const log = () => page.getByRole('table', { name: 'Usage log' });
/** The ids of the rows shown, from their Details buttons. */
async function shownIds(): Promise<string[]> {
  await log().waitFor();
  const names = await log()
    .getByRole('button', { name: /^Details of / })
    .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-label') ?? ''));
  return names.map((name) => name.replace('Details of ', '')).sort();
}
const search = () => Object.fromEntries(new URL(page.url()).searchParams);

describe.skipIf(!enabled)('the usage explorer in Chromium', () => {
  it("shows New York's day, with seconds, from the URL", async () => {
    await page.goto('/usage?from=2026-11-10&to=2026-11-10');
    expect(await shownIds()).toEqual(['s2', 's3', 's4']);
    await log()
      .getByRole('cell', { name: /00:30:05/ })
      .waitFor();
    await expect(page.getByLabel('From').inputValue()).resolves.toBe('2026-11-10');
    await expect(page.getByText('America/New_York').count()).resolves.toBeGreaterThan(0);
  });

  it('finds a model by part of its name and an error by its word; reload and back keep the filters', async () => {
    await page.getByLabel('Model').fill('MINI');
    await page.getByLabel('Status').selectOption({ label: 'Error' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/status=error/);
    expect(search()).toMatchObject({ model: 'MINI', status: 'error', from: '2026-11-10', to: '2026-11-10' });
    expect(await shownIds()).toEqual(['s2']);
    await log().getByRole('cell', { name: 'Error (upstream_error)' }).waitFor();

    await page.reload();
    expect(await shownIds()).toEqual(['s2']);
    await expect(page.getByLabel('Model').inputValue()).resolves.toBe('MINI');
    await expect(page.getByLabel('Status').inputValue()).resolves.toBe('error');

    await page.goBack();
    await page.waitForURL((url) => !url.searchParams.has('status'));
    expect(await shownIds()).toEqual(['s2', 's3', 's4']);
    await expect(page.getByLabel('Model').inputValue()).resolves.toBe('');
    await page.goForward();
    expect(await shownIds()).toEqual(['s2']);
  });

  it('filters by an agent key and by an agent', async () => {
    await page.goto('/usage?from=2026-11-09&to=2026-11-11');
    await page.getByLabel('Key', { exact: true }).selectOption({ label: 'bot' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/key=/);
    expect(await shownIds()).toEqual(['s3']);
    await page.goto('/usage?from=2026-11-09&to=2026-11-11&agent=support');
    expect(await shownIds()).toEqual(['s3']);
  });

  it('groups by key with totals and each key’s daily limit, and by local day', async () => {
    await page.goto('/usage?from=2026-11-10&to=2026-11-10');
    await page.getByLabel('Group by').selectOption({ label: 'Key' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const byKey = page.getByRole('region', { name: 'Usage by key' });
    await byKey.getByRole('table', { name: 'Usage by key' }).waitFor();
    await expect(byKey.getByRole('row', { name: /^app 2 / }).count()).resolves.toBe(1);
    await expect(byKey.getByRole('row', { name: /^bot 1 / }).count()).resolves.toBe(1);
    await expect(byKey.locator('dl[aria-label="Totals"]').textContent()).resolves.toMatch(/Requests3Input/);
    const meter = byKey.getByRole('meter', { name: 'app: daily limit used' });
    await expect(meter.getAttribute('max')).resolves.toBe('3');
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'usage.png'), fullPage: true });
    }

    await page.getByLabel('Group by').selectOption({ label: 'Day' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const byDay = page.getByRole('table', { name: 'Usage by day' });
    await byDay.waitFor();
    // One row of New York's 10 November, with its three calls.
    await expect(byDay.getByRole('row').count()).resolves.toBe(2);
    await expect(byDay.getByRole('row', { name: /^10 Nov 3 / }).count()).resolves.toBe(1);
  });

  it('exports as CSV exactly the rows the page shows', async () => {
    await page.goto('/usage?from=2026-11-10&to=2026-11-10&model=gpt');
    const shown = await shownIds();
    expect(shown).toEqual(['s2', 's4']);
    const href = (await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')) ?? '';
    const csv = await page.request.get(href);
    expect(csv.status()).toBe(200);
    const ids = (await csv.text())
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',')[1]);
    expect(ids.sort()).toEqual(shown);
  });

  it('logged no errors in the browser console', () => {
    expect(errors).toEqual([]);
  });
});
