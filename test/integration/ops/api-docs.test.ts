import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/test-app.ts';

/** The API reference: one OpenAPI 3.1 document, valid, built from the routes' own zod schemas, rendered at /docs. */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
});
afterAll(async () => t?.close());

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document covering /v1, /v1beta and /agents/v1', async () => {
    const response = await t.app.inject({ url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json<{ openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> } }>();
    const result = await new Validator().validate(document);
    if (!result.valid) console.log(JSON.stringify(result.errors).slice(0, 2000));
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    const paths = Object.keys(document.paths);
    for (const path of ['/v1/chat/completions', '/v1/messages', '/v1/keys/{id}', '/v1beta/models', '/v1beta/models/{model}:generateContent', '/agents/v1/responses', '/agents/v1/chat/completions'])
      expect(paths).toContain(path);
    // Generated from the routes' schemas: fields and required lists as the validators have them.
    expect(document.components.schemas['ChatCompletionRequest']?.required).toEqual(expect.arrayContaining(['model', 'messages']));
    expect(Object.keys(document.components.schemas['CreateResponseRequest']?.properties ?? {})).toEqual(expect.arrayContaining(['model', 'input', 'previous_response_id', 'stream']));
    expect(Object.keys(document.components.schemas['CreateKeyRequest']?.properties ?? {})).toEqual(expect.arrayContaining(['name', 'daily_limit_usd', 'allowed_models']));
  });

  it('renders at /docs with a local viewer and no inline script', async () => {
    const page = await t.app.inject({ url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).not.toMatch(/<script>[^<]/);
    const bundle = await t.app.inject({ url: '/docs/assets/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-type']).toContain('javascript');
    expect((await t.app.inject({ url: '/docs/assets/swagger-ui.css' })).headers['content-type']).toContain('text/css');
    // One wildcard route serves the folder; only the viewer's two files leave it (the
    // package's own index.html, which loads a remote petstore, and the rest answer 404).
    for (const other of ['index.html', 'swagger-initializer.js', 'package.json', '../swagger-ui-dist/package.json', 'missing.js']) {
      expect((await t.app.inject({ url: `/docs/assets/${other}` })).statusCode, other).toBe(404);
    }
    expect((await t.app.inject({ url: '/docs/start.js' })).body).toContain('/openapi.json');
  });
});
