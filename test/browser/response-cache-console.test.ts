import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { issueSetupLink } from '../../src/console/session-routes.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { FAKE_USAGE, type PromptCacheUpstream, startPromptCacheUpstream } from '../support/fake-prompt-cache-upstream.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The console's side of caching: a model key opted into the response cache from its form,
 * and a call's details naming a cache hit and the provider's cache writes.
 */
const enabled = browserAvailable();
let upstream: PromptCacheUpstream;
let server: TestApp;
let baseUrl: string;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  if (!enabled) return;
  upstream = await startPromptCacheUpstream();
  const env = {
    OPENAI_API_KEY: 'sk-upstream',
    OPENAI_BASE_URL: upstream.openaiUrl,
    ANTHROPIC_API_KEY: 'sk-ant-upstream',
    ANTHROPIC_BASE_URL: upstream.anthropicUrl,
    JUNCTION_AGENTS_DIR: '/nonexistent',
    JUNCTION_TOOLS_DIR: '/nonexistent',
    JUNCTION_KNOWLEDGE_DIR: '/nonexistent',
  };
  server = await startTestApp(env, { env });
  baseUrl = await server.app.listen({ host: '127.0.0.1', port: 0 });
  await runAdminCommand(server.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: baseUrl });
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
  await upstream?.close();
});

/** The value beside `name` in the open call's details. */
async function detail(name: string): Promise<string> {
  const dialog = page.getByRole('dialog', { name: 'Call details' });
  await dialog.waitFor();
  return (
    (await dialog
      .locator('dt', { hasText: new RegExp(`^${name}$`) })
      .locator('xpath=following-sibling::dd')
      .textContent()) ?? ''
  );
}

async function openDetails(id: string): Promise<void> {
  await page.getByRole('link', { name: 'Usage' }).click();
  // The log the page already holds predates the call: read it afresh.
  await page.reload();
  await page.getByRole('button', { name: `Details of ${id}` }).click();
}

describe.skipIf(!enabled)('caching in the console', () => {
  it('creates a key opted into the response cache, and shows its second call as a hit', async () => {
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    const form = page.getByRole('dialog', { name: 'Create key' });
    await form.getByLabel('Name').fill('cached app');
    await form.getByLabel('Response cache (seconds)').fill('300');
    await form.getByRole('button', { name: 'Create' }).click();
    const created = page.getByRole('dialog', { name: 'Your new key' });
    const key = ((await created.getByLabel('New key').textContent()) ?? '').trim();
    await created.getByRole('button', { name: 'Done' }).click();

    const client = new OpenAI({ apiKey: key, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    const ask = () => client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'from the console' }] }).withResponse();
    expect((await ask()).response.headers.get('x-junction-cache')).toBe('miss');
    const hit = await ask();
    expect(hit.response.headers.get('x-junction-cache')).toBe('hit');
    await server.services.settlements.drain();

    await openDetails(hit.data.id);
    expect(await detail('Response cache')).toBe('hit');
    expect(await detail('Cost')).toMatch(/^\$0(\.0+)?$/);
    await page.keyboard.press('Escape');
  });

  it('shows a prompt-cached Anthropic call’s cache reads and writes', async () => {
    const key = await server.key('model', { name: 'plain app' });
    const client = new OpenAI({ apiKey: key, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'anthropic/claude-sonnet-4-5', messages: [{ role: 'user', content: 'prompt cached' }] });
    await server.services.settlements.drain();

    await openDetails(completion.id);
    expect(await detail('Cached input tokens')).toBe(String(FAKE_USAGE.anthropic.cacheRead));
    expect(await detail('Cache write tokens')).toBe(String(FAKE_USAGE.anthropic.cacheWrite));
    expect(await detail('Response cache')).toBe('—');
    await page.keyboard.press('Escape');
  });

  it('logged no errors in the browser console', () => {
    expect(errors).toEqual([]);
  });
});
