import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * A browser app on another origin calls the gateway with a key in a header, as the
 * OpenAI and Anthropic SDKs do in a browser: with JUNCTION_CORS_ORIGINS naming its
 * origin, Chromium's preflight passes and the app reads answers, errors and headers;
 * a page on an origin not listed, and any page calling the console's API, is refused.
 */
const enabled = browserAvailable();
let pages: Server;
let allowedOrigin: string;
let otherOrigin: string;
let gateway: GatewayHarness;
let browser: Browser;
let modelKey: string;
let agentKey: string;

beforeAll(async () => {
  if (!enabled) return;
  // One blank page; 127.0.0.1 and localhost on the same port are two origins.
  pages = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'));
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  const port = (pages.address() as AddressInfo).port;
  allowedOrigin = `http://127.0.0.1:${port}`;
  otherOrigin = `http://localhost:${port}`;
  gateway = await startGateway({ JUNCTION_CORS_ORIGINS: allowedOrigin, JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
  modelKey = await gateway.key('model');
  agentKey = await gateway.key('agent');
  browser = await launchBrowser();
});
afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await gateway?.close();
  await new Promise((resolve) => pages?.close(resolve));
});

async function pageAt(origin: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors = collectErrors(page);
  await page.goto(`${origin}/`);
  return { page, errors };
}

type Outcome = { status: number; body: unknown; requestId: string | null } | { failed: string };

/** fetch() inside the page: what the app's own code would see. */
const call = (page: Page, url: string, init: { method: string; headers: Record<string, string>; body?: string }) =>
  page.evaluate(
    async ({ url, init }): Promise<Outcome> => {
      try {
        const response = await fetch(url, init);
        return { status: response.status, body: await response.json(), requestId: response.headers.get('x-request-id') };
      } catch (error) {
        return { failed: String(error) };
      }
    },
    { url, init },
  );

describe.skipIf(!enabled)('CORS for browser apps', () => {
  it('lets the listed origin call chat completions, messages and the Agents API, and read errors and headers', async () => {
    const { page, errors } = await pageAt(allowedOrigin);
    const chat = await call(page, `${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${modelKey}`, 'content-type': 'application/json', 'x-stainless-lang': 'js' },
      body: JSON.stringify({ model: 'openai/test-echo', max_tokens: 16, messages: [{ role: 'user', content: 'from a browser' }] }),
    });
    expect(chat).toMatchObject({ status: 200, body: { choices: [{ message: { content: 'from a browser' } }] } });
    expect((chat as { requestId: string }).requestId).toMatch(/^req_/);
    // The Anthropic SDK in a browser: x-api-key and its opt-in header.
    const messages = await call(page, `${gateway.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': modelKey, 'anthropic-version': '2023-06-01', 'anthropic-dangerous-direct-browser-access': 'true', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'anthropic/test-echo', max_tokens: 16, messages: [{ role: 'user', content: 'messages too' }] }),
    });
    expect(messages).toMatchObject({ status: 200, body: { content: [{ text: 'messages too' }] } });
    const agents = await call(page, `${gateway.baseUrl}/agents/v1/models`, { method: 'GET', headers: { authorization: `Bearer ${agentKey}` } });
    expect(agents).toMatchObject({ status: 200, body: { object: 'list' } });
    // An error is readable too (not an opaque network failure).
    const denied = await call(page, `${gateway.baseUrl}/v1/models`, { method: 'GET', headers: { authorization: 'Bearer sk-jn-wrong' } });
    expect(denied).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
    expect(errors.filter((error) => !error.includes('401'))).toEqual([]);
    await page.close();
  });

  it('refuses an origin that is not listed, and the console API for every origin', async () => {
    const other = await pageAt(otherOrigin);
    const refused = await call(other.page, `${gateway.baseUrl}/v1/models`, { method: 'GET', headers: { authorization: `Bearer ${modelKey}` } });
    expect(refused).toMatchObject({ failed: expect.stringContaining('Failed to fetch') });
    await other.page.close();

    const listed = await pageAt(allowedOrigin);
    const consoleApi = await call(listed.page, `${gateway.baseUrl}/console/api/session`, { method: 'GET', headers: { 'content-type': 'application/json' } });
    expect(consoleApi).toMatchObject({ failed: expect.stringContaining('Failed to fetch') });
    await listed.page.close();
  });

  it('answers preflights with what was asked, for the listed origin only', async () => {
    const preflight = (origin: string) =>
      fetch(`${gateway.baseUrl}/v1/chat/completions`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
    const allowed = await preflight(allowedOrigin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(allowedOrigin);
    expect(allowed.headers.get('access-control-allow-headers')).toBe('authorization,content-type');
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
    const other = await preflight(otherOrigin);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
