import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { JunctionError } from '../core/errors.ts';
import { PROJECT_ROOT } from '../core/project-root.ts';

const WEB_DIST = join(PROJECT_ROOT, 'web/dist/');

/** Paths that belong to the APIs: an unknown one is a JSON 404 there, never the app's HTML. */
const API_PREFIXES = ['/v1/', '/v1beta/', '/agents/v1/', '/console/api/', '/healthz', '/readyz', '/metrics', '/openapi.json', '/docs'];

/**
 * The console's security headers: scripts only from this origin (no inline script),
 * styles from this origin plus inline style attributes (the dialog and chart libraries
 * set them), no framing, no sniffing, no referrer to other sites.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/**
 * Serves the console (web/dist, built by `npm ci` / `npm start`) at `/`: hashed assets
 * cached for a year and sent precompressed, index.html never cached, and every other page path answered
 * with index.html so the browser's router takes over.
 */
export async function serveWeb(app: FastifyInstance): Promise<void> {
  const indexFile = `${WEB_DIST}index.html`;
  if (!existsSync(indexFile)) {
    app.log.warn({ path: WEB_DIST }, 'the console is not built (run npm run build:web); / serves a notice');
  }
  const indexHtml = () => (existsSync(indexFile) ? readFileSync(indexFile) : Buffer.from('<!doctype html><title>Junction</title><p>The console is not built: run <code>npm run build:web</code>.</p>'));

  if (existsSync(`${WEB_DIST}assets`)) {
    await app.register(fastifyStatic, {
      root: `${WEB_DIST}assets`,
      prefix: '/assets/',
      // One wildcard route (the default), not a route per file found at start.
      immutable: true,
      // The build wrote .br and .gz beside each asset: sent as they are to browsers that accept them, compressed once, not per request.
      preCompressed: true,
      maxAge: '365d',
      setHeaders: (response) => {
        for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.header(name, value);
      },
    });
  }

  app.get('/*', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (API_PREFIXES.some((prefix) => path === prefix.replace(/\/$/, '') || path.startsWith(prefix)) || path.startsWith('/assets/')) {
      throw new JunctionError('not_found', `No route for ${request.method} ${path}.`);
    }
    return reply.headers({ ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' }).send(indexHtml());
  });
}
