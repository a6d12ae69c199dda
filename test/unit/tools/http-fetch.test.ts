import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpFetch, httpFetchConfig, createHttpFetchTool, type HttpFetchConfig } from '../../../src/tools/builtin/http-fetch.ts';
import { checkUrl, isPublicAddress, policyFromEnv, resolveTarget } from '../../../src/tools/builtin/http-fetch-policy.ts';
import { compileTool } from '../../../src/tools/compile-tool.ts';
import { runTool } from '../../../src/tools/run-tool.ts';
import { toolContext } from './tool-test-helpers.ts';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? '/';
    if (path === '/hello') response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`hello from ${request.headers.host}`);
    else if (path === '/page')
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><head><title>Doc</title><style>p{}</style></head><body><h1>Title &amp; more</h1><script>alert(1)</script><p>First</p><p>Second&nbsp;line</p></body></html>');
    else if (path === '/big') response.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(2_000_000));
    else if (path === '/image') response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(64));
    else if (path === '/to-hello') response.writeHead(302, { location: '/hello' }).end();
    else if (path === '/to-elsewhere') response.writeHead(301, { location: 'http://example.org/secret' }).end();
    else if (path === '/to-metadata') response.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    else if (path === '/loop') response.writeHead(302, { location: '/loop' }).end();
    else if (path === '/slow') setTimeout(() => response.end('late'), 2_000);
    else response.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const local = (overrides: Partial<HttpFetchConfig> = {}): HttpFetchConfig => httpFetchConfig({ allowlist: ['127.0.0.1'], allowPrivate: true, ...overrides }, {});
const signal = () => new AbortController().signal;

describe('http_fetch', () => {
  it('fetches an allowlisted URL when private addresses are allowed explicitly', async () => {
    const result = await httpFetch(`${base}/hello`, local(), signal());
    expect(result).toEqual({ url: `${base}/hello`, status: 200, content_type: 'text/plain; charset=utf-8', truncated: false, text: `hello from ${base.slice(7)}` });
  });

  it('refuses loopback by default', async () => {
    await expect(httpFetch(`${base}/hello`, local({ allowPrivate: false }), signal())).rejects.toThrow(/127\.0\.0\.1 resolves to 127\.0\.0\.1, a private or reserved address/);
    const tool = compileTool(createHttpFetchTool({ allowlist: ['127.0.0.1'], allowPrivate: false }), 'builtin', 'builtin');
    const result = await runTool(tool, { url: `${base}/hello` }, toolContext());
    expect(result.ok).toBe(false);
    expect(result.content).toMatch(/^Error: .*private or reserved address/);
  });

  it('refuses hosts that are not on the allowlist, and everything when there is none', async () => {
    await expect(httpFetch(`${base}/hello`, local({ allowlist: ['example.com'] }), signal())).rejects.toThrow(/is not on the http_fetch allowlist/);
    await expect(httpFetch(`${base}/hello`, local({ allowlist: [] }), signal())).rejects.toThrow(/no allowlist configured/);
    await expect(httpFetch('file:///etc/passwd', local(), signal())).rejects.toThrow(/only http and https/);
  });

  it('connects to the checked address, not to what DNS says later', async () => {
    // "docs.test" does not exist in DNS; the injected lookup is the only answer, and the
    // request still carries the real host name.
    const config = local({ allowlist: ['docs.test'], lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    const port = new URL(base).port;
    const result = await httpFetch(`http://docs.test:${port}/hello`, config, signal());
    expect(result.text).toBe(`hello from docs.test:${port}`);
  });

  it('follows redirects, re-checking every hop', async () => {
    expect((await httpFetch(`${base}/to-hello`, local(), signal())).url).toBe(`${base}/hello`);
    await expect(httpFetch(`${base}/to-elsewhere`, local(), signal())).rejects.toThrow(/redirect refused: http:\/\/example\.org is not on the http_fetch allowlist/);
    await expect(httpFetch(`${base}/to-metadata`, local(), signal())).rejects.toThrow(/redirect refused: http:\/\/169\.254\.169\.254 is not on the http_fetch allowlist/);
    await expect(httpFetch(`${base}/loop`, local({ maxRedirects: 3 }), signal())).rejects.toThrow(/too many redirects/);
  });

  it('caps the body size and marks the result as truncated', async () => {
    const result = await httpFetch(`${base}/big`, local({ maxBytes: 1_000 }), signal());
    expect(result.truncated).toBe(true);
    expect(result.text).toHaveLength(1_000);
  });

  it('converts HTML to text and omits binary content', async () => {
    expect((await httpFetch(`${base}/page`, local(), signal())).text).toBe('Doc\n\nTitle & more\n\nFirst\n\nSecond line');
    expect((await httpFetch(`${base}/image`, local(), signal())).text).toBe('[image/png content omitted, 64 bytes]');
    expect((await httpFetch(`${base}/missing`, local(), signal())).status).toBe(404);
  });

  it('times out', async () => {
    await expect(httpFetch(`${base}/slow`, local({ timeoutMs: 100 }), signal())).rejects.toThrow(/timed out after 100 ms/);
  });
});

describe('http_fetch policy', () => {
  it('classifies addresses: only public unicast passes', () => {
    for (const address of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111']) expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      '2002:7f00:1::',
      'not-an-ip',
    ])
      expect(isPublicAddress(address), address).toBe(false);
  });

  it('refuses a name when any of its addresses is private (DNS rebinding set-ups)', async () => {
    const lookup = async () => [
      { address: '93.184.216.34', family: 4 as const },
      { address: '127.0.0.1', family: 4 as const },
    ];
    await expect(resolveTarget(new URL('http://rebind.test/'), { allowlist: ['*'], allowPrivate: false, lookup })).rejects.toThrow(/127\.0\.0\.1/);
    await expect(resolveTarget(new URL('http://[::ffff:7f00:1]/'), { allowlist: ['*'], allowPrivate: false, lookup })).rejects.toThrow(/private/);
  });

  it('matches hosts, wildcards and URL prefixes on boundaries', () => {
    const allowlist = ['example.com', '*.wikipedia.org', 'https://api.github.com/repos'];
    expect(checkUrl(new URL('https://example.com/a'), allowlist)).toBeUndefined();
    expect(checkUrl(new URL('https://en.wikipedia.org/wiki/X'), allowlist)).toBeUndefined();
    expect(checkUrl(new URL('https://api.github.com/repos/a/b'), allowlist)).toBeUndefined();
    expect(checkUrl(new URL('https://example.com.evil.net/'), allowlist)).toMatch(/not on the/);
    expect(checkUrl(new URL('https://wikipedia.org.evil.net/'), allowlist)).toMatch(/not on the/);
    expect(checkUrl(new URL('https://api.github.com/repositories'), allowlist)).toMatch(/not on the/);
    expect(checkUrl(new URL('https://user:pw@example.com/'), allowlist)).toMatch(/credentials/);
  });

  it('reads the allowlist and the private switch from the environment', () => {
    expect(policyFromEnv({ JUNCTION_HTTP_FETCH_ALLOWLIST: ' example.com, *.b.org ,', JUNCTION_HTTP_FETCH_ALLOW_PRIVATE: 'true' })).toEqual({
      allowlist: ['example.com', '*.b.org'],
      allowPrivate: true,
    });
    expect(policyFromEnv({}).allowPrivate).toBe(false);
  });
});
