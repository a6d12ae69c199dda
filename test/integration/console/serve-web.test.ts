import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../src/core/project-root.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';

/** The console's files: hashed assets cached for good, every page path answered with index.html, API paths never. */
let t: TestApp;
// Built by `npm ci` (the prepare script): the assets the browser tests load too.
const assets = readdirSync(join(PROJECT_ROOT, 'web/dist/assets'));

beforeAll(async () => {
  t = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
});
afterAll(async () => t?.close());

describe('the console files', () => {
  it('serves a hashed asset for a year, immutable, with the security headers', async () => {
    const script = assets.find((file) => file.endsWith('.js'));
    expect(script).toBeDefined();
    const response = await t.app.inject({ url: `/assets/${script}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('javascript');
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['x-frame-options']).toBe('DENY');
  });

  it('sends a script precompressed to browsers that accept it, and plain to others', async () => {
    const script = assets.find((file) => file.endsWith('.js'));
    const brotli = await t.app.inject({ url: `/assets/${script}`, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers['vary']).toContain('accept-encoding');
    const gzip = await t.app.inject({ url: `/assets/${script}`, headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    const plain = await t.app.inject({ url: `/assets/${script}`, headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(brotli.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
  });

  it('answers page paths with index.html, never cached', async () => {
    for (const path of ['/', '/agents', '/keys?tab=new']) {
      const response = await t.app.inject({ url: path });
      expect(response.statusCode, path).toBe(200);
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toContain('<div id="root">');
    }
  });

  it('answers a missing asset, an unknown API path with a JSON 404', async () => {
    for (const path of ['/assets/missing-0000.js', '/assets/', '/v1/nothing-here', '/agents/v1/nothing-here']) {
      const response = await t.app.inject({ url: path });
      expect(response.statusCode, path).toBe(404);
      expect(response.headers['content-type'], path).toContain('application/json');
      expect(response.json<{ error: { message: string } }>().error.message, path).toBeTruthy();
    }
  });
});
