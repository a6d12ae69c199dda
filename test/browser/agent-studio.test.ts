import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { signIn } from '../support/console-session.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';

/**
 * The agent studio in Chromium: editor and playground side by side at 1280 px and stacked
 * at 390 px; chatting with an earlier version after a later one is published; "Try this
 * draft"; a knowledge agent's retrieved passage and a tool step drawn inside the answer;
 * unsaved edits asked about before leaving.
 */
const enabled = browserAvailable();
const PASSWORD = 'studio browser password';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SCREENSHOTS = process.env.JUNCTION_SCREENSHOTS ? join(import.meta.dirname, '../../docs/screenshots') : undefined;
const folders = runtimeFolders({
  helper: 'name: Helper\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\nknowledge: [handbook]\nmax_steps: 4\n',
});
mkdirSync(join(folders.root, 'knowledge', 'handbook'));
writeFileSync(join(folders.root, 'knowledge', 'handbook', 'returns.md'), '# Returns\n\nA kettle may be returned within 45 days of delivery for a full refund.\n');

let gateway: GatewayHarness;
let browser: Browser;
let page: Page;
let errors: string[];

const definition = (instructions: string) => ({ name: 'Studio', model: 'openai/test-echo', instructions });

beforeAll(async () => {
  if (!enabled) return;
  gateway = await startGateway(folders.env);
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '25', currency: 'USD' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'studio@example.com', password: PASSWORD, role: 'owner' });
  // A console agent whose version 2 is published over version 1.
  const owner = await signIn(gateway.app, 'studio@example.com', PASSWORD);
  for (const instructions of ['Version one rules.', 'Version two rules.']) {
    const saved = await owner.request('PUT', '/console/api/agents/studio', { definition: definition(instructions), change_note: instructions });
    expect(saved.statusCode).toBeLessThan(300);
  }
  const published = await owner.request('POST', '/console/api/agents/studio/publish', { version: 2 });
  expect(published.statusCode).toBe(200);
  // A console agent that searches its knowledge and calls a tool, as the docs' screenshot shows it.
  const kettle = await owner.request('PUT', '/console/api/agents/kettle', {
    definition: { name: 'Kettle support', model: 'openai/test-tool', instructions: 'Answer from the handbook; use your tool.', tools: ['echo_upper'], knowledge: ['handbook'], max_steps: 4 },
  });
  expect(kettle.statusCode, kettle.body).toBeLessThan(300);

  browser = await launchBrowser();
  // axe-core goes in as an inline script, which the console's CSP rightly refuses.
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: gateway.baseUrl, bypassCSP: true })).newPage();
  errors = collectErrors(page);
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill('studio@example.com');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
});
afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await gateway?.close();
  folders.remove();
});

async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const found = await locator.boundingBox();
  if (!found) throw new Error('not laid out');
  return found;
}

/** axe-core's violations on the page as it is drawn now (a string: it runs in the page, where axe and the DOM are). */
async function axeViolations(): Promise<Array<{ id: string; scheme: string; nodes: string[] }>> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const found: Array<{ id: string; scheme: string; nodes: string[] }> = [];
  // In the light and the dark theme (the console follows the system's setting until one is picked).
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const violations = await page.evaluate<Array<{ id: string; nodes: string[] }>>(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
      result.violations.map((violation) => ({ id: violation.id, nodes: violation.nodes.slice(0, 5).map((node) => JSON.stringify(node.target)) })))`);
    found.push(...violations.map((violation) => ({ ...violation, scheme })));
  }
  return found;
}

/** What the fake upstream was last asked: the model and the system prompt. */
function lastUpstreamCall(): { model: string; system: string } {
  const body = gateway.openai.requests.filter((request) => request.path.endsWith('/chat/completions')).at(-1)?.body as {
    model: string;
    messages: Array<{ role: string; content: string }>;
  };
  return { model: body.model, system: body.messages.find((message) => message.role === 'system')?.content ?? '' };
}

describe.skipIf(!enabled)('the agent studio', () => {
  it('puts the editor and the playground side by side at 1280 px, both on the first screen', async () => {
    await page.goto('/agents/studio');
    const editor = await box(page.getByRole('region', { name: 'Editor' }));
    const playground = await box(page.getByRole('region', { name: 'Playground' }));
    expect(playground.x).toBeGreaterThanOrEqual(editor.x + editor.width);
    expect(Math.abs(playground.y - editor.y)).toBeLessThan(2);
    // Both start on the first screen, and the message box is on it too.
    expect(editor.y).toBeLessThan(900);
    expect(playground.y).toBeLessThan(900);
    const message = await box(page.getByRole('region', { name: 'Playground' }).getByRole('textbox', { name: 'Message' }));
    expect(message.y + message.height).toBeLessThanOrEqual(900);
    // From the editor's last control the next Tab is the playground's first.
    await page.getByRole('button', { name: 'Save draft' }).focus();
    await page.keyboard.press('Tab');
    await expect(page.locator(':focus').getAttribute('aria-describedby')).resolves.toBe('playground-version-hint');
    // The versions wait behind their panel.
    await expect(page.getByRole('button', { name: 'Versions' }).getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(page.getByRole('table', { name: 'Versions' }).count()).resolves.toBe(0);
  });

  it('chats with version 1 after version 2 is published: the answer names it and the upstream got its instructions', async () => {
    const playground = page.getByRole('region', { name: 'Playground' });
    const selector = playground.getByLabel('Version to chat with');
    await expect(selector.inputValue()).resolves.toBe('published');
    await selector.selectOption('1');
    await playground.getByRole('status').getByText('Now chatting with Version 1: a new conversation started.').waitFor();
    await playground.getByLabel('Message', { exact: true }).fill('which rules?');
    await playground.getByRole('button', { name: 'Send' }).click();
    await playground.getByText(/completed · .* · Version 1 ·/).waitFor();
    expect(lastUpstreamCall()).toEqual({ model: 'test-echo', system: expect.stringContaining('Version one rules.') });
    expect(lastUpstreamCall().system).not.toContain('Version two rules.');

    // Back to the published version: a new conversation, answered by version 2.
    await selector.selectOption('published');
    await expect(playground.getByRole('button', { name: /Edit message/ }).count()).resolves.toBe(0);
    await playground.getByLabel('Message', { exact: true }).fill('and now?');
    await playground.getByRole('button', { name: 'Send' }).click();
    await playground.getByText(/completed · .* · Version 2 ·/).waitFor();
    expect(lastUpstreamCall().system).toContain('Version two rules.');
  });

  it('switches the playground to a draft right after saving it with "Try this draft"', async () => {
    await page.getByLabel('Instructions').fill('Version three rules.');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page
      .getByRole('status')
      .getByText(/Saved draft version 3/)
      .waitFor();
    await page.getByRole('button', { name: 'Try this draft' }).click();
    const playground = page.getByRole('region', { name: 'Playground' });
    await expect(playground.getByLabel('Version to chat with').inputValue()).resolves.toBe('3');
    await expect(page.locator(':focus').getAttribute('name')).resolves.toBe('message');
    await page.keyboard.type('draft please');
    await page.keyboard.press('Enter');
    await playground.getByText(/completed · .* · Version 3 ·/).waitFor();
    expect(lastUpstreamCall().system).toContain('Version three rules.');
    // Saving opened the versions: the draft is listed there, the published version unchanged.
    await page.getByRole('table', { name: 'Versions' }).getByRole('cell', { name: 'draft', exact: true }).waitFor();
    // The studio with its version selector, an answer and the versions open: nothing axe-core finds.
    await page.getByRole('region', { name: 'Compare versions' }).waitFor();
    await page.getByRole('table', { name: 'History' }).waitFor();
    await expect(axeViolations()).resolves.toEqual([]);
  });

  it("draws a knowledge agent's retrieved passage and its tool step inside the answer, collapsed until opened", async () => {
    await page.goto('/agents/kettle');
    const playground = page.getByRole('region', { name: 'Playground' });
    await playground.getByLabel('Message', { exact: true }).fill('Can I return a kettle?');
    await playground.getByRole('button', { name: 'Send' }).click();
    await playground.getByText(/completed · \d+ in/).waitFor();

    const retrieval = playground.getByRole('group', { name: 'Retrieved passages' });
    await retrieval.getByText('Knowledge: 1 passage for “Can I return a kettle?”').waitFor();
    await expect(retrieval.getByText(/45 days/).isVisible()).resolves.toBe(false);
    await retrieval.getByText(/^Knowledge:/).click();
    // One passage: its document, its own text and how closely it matched, in words.
    const passage = retrieval.getByRole('listitem').filter({ hasText: 'handbook/returns.md' });
    await passage.getByText('A kettle may be returned within 45 days of delivery for a full refund.', { exact: true }).waitFor();
    await passage.getByText(/How closely it matched: the closest match of this search/).waitFor();

    const tool = playground.getByRole('group', { name: 'Tool call echo_upper' });
    // Collapsed: its name, how long it took and what it cost, from the run's record.
    await tool.getByText(/Tool echo_upper · done · \d+ ms · \$0\.002/).waitFor();
    await expect(tool.getByRole('figure', { name: 'Arguments' }).isVisible()).resolves.toBe(false);
    await tool.getByText(/^Tool echo_upper/).click();
    await expect(tool.getByRole('figure', { name: 'Arguments' }).textContent()).resolves.toContain('"text": "fake"');
    await expect(tool.getByRole('figure', { name: 'Result' }).textContent()).resolves.toContain('FAKE');
    await playground.getByRole('link', { name: 'See the run' }).waitFor();
    await expect(axeViolations()).resolves.toEqual([]);
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'agent-studio.png') });
    }
  });

  it('stacks the editor above the playground at 390 px, with nothing wider than the screen', async () => {
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 }, baseURL: gateway.baseUrl })).newPage();
    const phoneErrors = collectErrors(phone);
    await phone.goto('/sign-in');
    await phone.getByLabel('Email').fill('studio@example.com');
    await phone.getByLabel('Password').fill(PASSWORD);
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.getByRole('heading', { name: 'Overview' }).waitFor();
    await phone.goto('/agents/studio');
    const editor = await box(phone.getByRole('region', { name: 'Editor' }));
    const playground = await box(phone.getByRole('region', { name: 'Playground' }));
    expect(playground.y).toBeGreaterThanOrEqual(editor.y + editor.height);
    for (const part of [editor, playground]) {
      expect(part.x).toBeGreaterThanOrEqual(0);
      expect(part.x + part.width).toBeLessThanOrEqual(390);
    }
    await phone.getByRole('button', { name: 'Versions' }).click();
    await phone.getByRole('table', { name: 'Versions' }).waitFor();
    await expect(phone.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);

    // An answer with its passage and tool step open still fits.
    await phone.goto('/agents/helper');
    const chat = phone.getByRole('region', { name: 'Playground' });
    await chat.getByLabel('Message', { exact: true }).fill('Can I return a kettle within 45 days?');
    await chat.getByRole('button', { name: 'Send' }).click();
    await chat.getByText(/completed · \d+ in/).waitFor();
    await chat
      .getByRole('group', { name: 'Retrieved passages' })
      .getByText(/^Knowledge:/)
      .click();
    await chat
      .getByRole('group', { name: 'Tool call echo_upper' })
      .getByText(/^Tool echo_upper/)
      .click();
    await chat.getByRole('group', { name: 'Tool call echo_upper' }).getByRole('figure', { name: 'Result' }).waitFor();
    await expect(phone.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
    await phone.close();
    expect(phoneErrors).toEqual([]);
  });

  it('asks before leaving with unsaved edits: a dialog in the app, beforeunload when the tab closes', async () => {
    await page.goto('/agents/studio');
    await page.getByLabel('Instructions').fill('An edit not saved yet.');
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toMatch(/^confirm: .*not saved/);
    expect(new URL(page.url()).pathname).toBe('/agents/studio');

    page.once('dialog', (dialog) => {
      asked.push(dialog.type());
      void dialog.dismiss();
    });
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => asked.length).toBe(2);
    expect(asked[1]).toBe('beforeunload');
    expect(page.isClosed()).toBe(false);
    expect(errors).toEqual([]);
  });
});
