import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { browserAvailable, collectErrors, launchBrowser } from '../support/browser.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * Invitations in a real browser: the owner invites from Settings and copies the link
 * shown once; a new person opens it and chooses a password; a person who already signs
 * in elsewhere signs in on the invite page and accepts; a revoked link is dead.
 */
const enabled = browserAvailable();
const PASSWORD = 'a browser password';
let gateway: GatewayHarness;
let browser: Browser;
let owner: Page;
let errors: string[][];
let otherAccountId: string;

beforeAll(async () => {
  if (!enabled) return;
  gateway = await startGateway({ JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  otherAccountId = ((await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'second team' })) as { data: { id: string } }).data.id;
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: PASSWORD, role: 'owner' });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'elsewhere@example.com', password: PASSWORD, account: otherAccountId, role: 'owner' });
  browser = await launchBrowser();
  owner = await (await browser.newContext({ baseURL: gateway.baseUrl })).newPage();
  errors = [collectErrors(owner)];
});
afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  await gateway?.close();
});

/** Signs the owner in and opens Settings. */
async function ownerSettings(): Promise<void> {
  await owner.goto('/sign-in');
  await owner.getByLabel('Email').fill('owner@example.com');
  await owner.getByLabel('Password').fill(PASSWORD);
  await owner.getByRole('button', { name: 'Sign in' }).click();
  await owner.getByRole('heading', { name: 'Overview' }).waitFor();
  await owner.getByRole('link', { name: 'Settings' }).click();
}

/** Invites an email from Settings and returns the link shown once. */
async function invite(email: string, role: string): Promise<string> {
  const form = owner.getByRole('form', { name: 'Invite a person' });
  await form.getByLabel('Email to invite').fill(email);
  await form.getByLabel('Role').selectOption(role);
  await form.getByRole('button', { name: 'Invite' }).click();
  await owner.getByRole('table', { name: 'Pending invitations' }).getByRole('cell', { name: email, exact: true }).waitFor();
  return ((await owner.getByLabel('Invitation link').textContent()) ?? '').trim();
}

/** A browser of someone else (no cookie of the owner's). */
async function stranger(): Promise<{ page: Page; context: BrowserContext }> {
  const context = await browser.newContext({ baseURL: gateway.baseUrl });
  const page = await context.newPage();
  errors.push(collectErrors(page));
  return { page, context };
}

describe.skipIf(!enabled)('invitations in Chromium', () => {
  it('a new person opens the link, chooses a password and joins with the invited role', async () => {
    await ownerSettings();
    const link = await invite('new.person@example.com', 'admin');
    expect(new URL(link).pathname).toBe('/invite');

    const { page, context } = await stranger();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Join default' }).waitFor();
    await page.getByLabel('Password', { exact: true }).fill('a new person password');
    await page.getByRole('button', { name: 'Set password and join' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByText('Your role: admin').waitFor();
    await context.close();

    await owner.reload();
    await owner.getByRole('table', { name: 'Members' }).getByRole('cell', { name: 'new.person@example.com', exact: true }).waitFor();
  });

  it('someone who signs in elsewhere signs in on the invite page and accepts', async () => {
    const link = await invite('elsewhere@example.com', 'member');
    const { page, context } = await stranger();
    await page.goto(link);
    await page.getByRole('button', { name: 'Sign in and accept' }).waitFor();
    await expect(page.getByRole('button', { name: 'Set password and join' }).count()).resolves.toBe(0);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in and accept' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const accounts = await page.getByLabel('Account').locator('option').allTextContents();
    expect(accounts.join(' ')).toContain('second team');
    expect(accounts.join(' ')).toContain('default');
    await context.close();
  });

  it('a revoked link shows that it no longer works', async () => {
    const link = await invite('revoked@example.com', 'member');
    await owner.getByRole('button', { name: 'Revoke invitation for revoked@example.com' }).click();
    await owner.getByRole('dialog', { name: 'Revoke the invitation for revoked@example.com?' }).getByRole('button', { name: 'Revoke' }).click();
    await owner.getByRole('dialog').waitFor({ state: 'detached' });
    await owner.getByRole('table', { name: 'Pending invitations' }).waitFor({ state: 'detached' });

    const { page, context } = await stranger();
    await page.goto(link);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('invalid, expired, revoked or already used');
    await context.close();
  });

  it('logged no errors in the browser console', () => {
    // The revoked link's preview answers 404 on purpose; the browser logs that request.
    expect(errors.flat().filter((error) => !/404/.test(error))).toEqual([]);
  });
});
