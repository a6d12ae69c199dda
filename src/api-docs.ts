import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from './openapi-document.ts';

const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Scripts from this origin only (the viewer's start-up is a file, not inline). */
const DOCS_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Junction API reference</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/start.js"></script>
  </body>
</html>
`;

const START = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, presets: [SwaggerUIBundle.presets.apis] });\n`;

/** `GET /openapi.json` (no key) and `GET /docs`: the reference rendered by Swagger UI, served from this server (no CDN). */
export async function apiDocsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/openapi.json', async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(openApiDocument()));
  // One wildcard route with an allowlist: `wildcard: false` listed the package's folder and
  // added a route per file at every start (60-100 ms of a start on a 2-core machine).
  await app.register(fastifyStatic, { root: SWAGGER_UI, prefix: '/docs/assets/', decorateReply: false, allowedPath: (path) => /^\/(swagger-ui\.css|swagger-ui-bundle\.js)$/.test(path) });
  app.get('/docs', async (_request, reply) => reply.headers({ ...DOCS_HEADERS, 'content-type': 'text/html; charset=utf-8' }).send(PAGE));
  app.get('/docs/start.js', async (_request, reply) => reply.headers({ ...DOCS_HEADERS, 'content-type': 'text/javascript; charset=utf-8' }).send(START));
}
