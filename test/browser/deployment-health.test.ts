import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueSetupLink } from '../../src/console/session-routes.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from '../support/fake-openai-upstream.ts';
import { startSwitchableUpstream, type SwitchableUpstream } from '../support/switchable-upstream.ts';
import { bearer } from '../support/test-app.ts';
import { chatBody, startRoutingApp, type RoutingApp } from '../integration/routing/routing-app.ts';

/** The Models page shows each deployment's health: a deployment answering 500 reads "open". */
const enabled = browserAvailable();
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let fake: FakeOpenAIUpstream;
let healthy: SwitchableUpstream;
let broken: SwitchableUpstream;
let gateway: RoutingApp;
let browser: Browser;
let page: Page;
let errors: string[];

const config = (a: string, b: string) => `
models:
  openai/routed:
    prices: { input: 10, output: 20 }
    deployments:
      - { provider: openai, name: steady, model: test-echo, base_url: ${a}/v1, rpm: 100 }
      - { provider: openai, name: failing, model: test-echo, base_url: ${b}/v1 }
    routing: { failure_threshold: 2, cooldown_seconds: 300 }
`;

beforeAll(async () => {
  if (!enabled) return;
  fake = await startFakeOpenAIUpstream();
  const origin = new URL(fake.url).origin;
  healthy = await startSwitchableUpstream(origin);
  broken = await startSwitchableUpstream(origin);
  broken.failure = { status: 500 };
  gateway = await startRoutingApp(config(healthy.origin, broken.origin), { OPENAI_API_KEY: 'sk-health', JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  const key = await gateway.key('model');
  for (let call = 0; call < 4; call += 1) {
    const response = await gateway.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: chatBody('openai/routed') });
    expect(response.statusCode).toBe(200);
  }
  const baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchBrowser();
  // axe-core is injected as an inline script, which the console's CSP rightly refuses.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: baseUrl, bypassCSP: true });
  page = await context.newPage();
  errors = collectErrors(page);
  const link = (await issueSetupLink(gateway.services.db, baseUrl, new Date())) as string;
  await page.goto(link);
  await page.getByLabel('Email').fill('owner@example.com');
  await page.getByLabel('Password').fill('a browser password');
  await page.getByRole('button', { name: 'Create owner' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}, 60_000);

afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await gateway?.close();
  await Promise.all([healthy?.close(), broken?.close(), fake?.close()]);
});

describe.skipIf(!enabled)('deployment health on the Models page', () => {
  it("shows the failing deployment's breaker open, in words, and the other closed", async () => {
    await page.getByRole('link', { name: 'Models' }).click();
    const table = page.getByRole('table', { name: 'Deployments of openai/routed' });
    await table.waitFor();
    await page.getByText('as seen by this server process').waitFor();
    const failing = table.getByRole('row', { name: /failing/ });
    expect(await failing.getByRole('cell').nth(4).textContent()).toMatch(/^open, \d+ s left$/);
    const steady = table.getByRole('row', { name: /steady/ });
    expect(await steady.getByRole('cell').nth(4).textContent()).toBe('closed');
    expect(await steady.getByRole('cell').nth(9).textContent()).toMatch(/^\d+ \/ 100 requests$/);
    expect(errors).toEqual([]);
  });

  it('passes axe-core with the deployments shown', async () => {
    await page.addScriptTag({ content: AXE_SOURCE });
    // A string: it runs in the page, where axe and the DOM are (this file is compiled without DOM types).
    const found = await page.evaluate<Array<{ id: string; nodes: string[] }>>(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
      result.violations.map((violation) => ({ id: violation.id, nodes: violation.nodes.slice(0, 5).map((node) => JSON.stringify(node.target)) })))`);
    expect(found).toEqual([]);
  });
});
