import { createServer, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type HostLookup, RefusedDestinationError, type ResolvedAddress } from '../../../src/net/address-guard.ts';
import { guardedFetch, type GuardedFetchOptions } from '../../../src/net/guarded-fetch.ts';

/**
 * The guard tenant-aimed calls go through. Names resolve through a fake lookup; the
 * dispatcher that would connect to the checked address records it and goes to the
 * local listener instead, so no test traffic leaves 127.0.0.1 and a refusal can be
 * seen to happen before any connection.
 */
let server: Server;
let port = 0;
const hits: string[] = [];
const pinned: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? '/';
    hits.push(path);
    if (path === '/to-loopback') response.writeHead(307, { location: `http://127.0.0.1:${port}/secret` }).end();
    else if (path === '/to-inner') response.writeHead(302, { location: `http://inner.test:${port}/secret` }).end();
    else if (path === '/to-metadata') response.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    else if (path === '/to-public') response.writeHead(308, { location: `http://public.test:${port}/hello` }).end();
    else if (path === '/huge') response.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(3_000_000));
    else if (path === '/endless') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => response.write(`data: ${'y'.repeat(64_000)}\n\n`), 1);
      response.on('close', () => clearInterval(timer));
    } else response.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  hits.length = 0;
  pinned.length = 0;
});

const NAMES: Record<string, ResolvedAddress[]> = {
  'public.test': [{ address: '93.184.216.34', family: 4 }],
  'inner.test': [{ address: '127.0.0.1', family: 4 }],
  'rebind.test': [
    { address: '93.184.216.34', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
  localhost: [{ address: '127.0.0.1', family: 4 }],
};
const lookup: HostLookup = async (hostname) => NAMES[hostname] ?? [];

/** Records the checked address it was asked to connect to, then reaches the local listener. */
const toListener = (target: ResolvedAddress) => {
  pinned.push(target.address);
  const local = ((_hostname, options, callback) => (options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4))) as LookupFunction;
  return new Agent({ connect: { lookup: local } });
};

const guard = (overrides: Partial<GuardedFetchOptions> = {}) =>
  guardedFetch({ allowPrivate: false, lookup, checkUrl: () => undefined, maxResponseBytes: 1_000_000, who: 'MCP', connectTo: toListener, ...overrides });

describe('guarded fetch', () => {
  it('reaches a public name, connecting to the address it checked', async () => {
    const response = await guard()(`http://public.test:${port}/hello`);
    expect(await response.text()).toBe('hello');
    expect(pinned).toEqual(['93.184.216.34']);
  });

  it.each([
    'http://127.0.0.1/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://224.0.0.1/',
    'http://0.0.0.0/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://localhost/',
    'http://inner.test/',
    'http://rebind.test/',
  ])('refuses %s before connecting', async (url) => {
    await expect(guard()(url)).rejects.toBeInstanceOf(RefusedDestinationError);
    expect(pinned).toEqual([]);
    expect(hits).toEqual([]);
  });

  it('checks every redirect again: to loopback, to a name resolving inside, to the metadata address', async () => {
    for (const path of ['/to-loopback', '/to-inner', '/to-metadata']) {
      await expect(guard()(`http://public.test:${port}${path}`)).rejects.toThrow(/^redirect refused: .*private or reserved address/);
    }
    expect(hits).toEqual(['/to-loopback', '/to-inner', '/to-metadata']);
    expect(pinned).toEqual(['93.184.216.34', '93.184.216.34', '93.184.216.34']);
  });

  it('follows an allowed redirect, re-checking the URL rule on each hop', async () => {
    const response = await guard()(`http://public.test:${port}/to-public`, { method: 'POST', body: '{}' });
    expect(await response.text()).toBe('hello');
    const onlyFirstHost = guard({ checkUrl: (url) => (url.pathname === '/to-public' ? undefined : `${url.pathname} is not allowed`) });
    await expect(onlyFirstHost(`http://public.test:${port}/to-public`)).rejects.toThrow('redirect refused: /hello is not allowed');
  });

  it('hands a redirect back unfollowed when the caller follows by hand (redirect: manual)', async () => {
    const response = await guard()(`http://public.test:${port}/to-loopback`, { redirect: 'manual' });
    expect(response.status).toBe(307);
    await expect(guard()(response.headers.get('location') ?? '')).rejects.toBeInstanceOf(RefusedDestinationError);
    expect(hits).toEqual(['/to-loopback']);
  });

  it('allows private addresses only when told to', async () => {
    const response = await guard({ allowPrivate: true })(`http://localhost:${port}/hello`);
    expect(await response.text()).toBe('hello');
    expect(pinned).toEqual(['127.0.0.1']);
  });

  it('cuts off a body past the byte cap, and a stream that never ends', async () => {
    const huge = await guard()(`http://public.test:${port}/huge`);
    await expect(huge.text()).rejects.toThrow(/exceeded the 1000000 bytes allowed/);
    const endless = await guard()(`http://public.test:${port}/endless`);
    await expect(endless.text()).rejects.toThrow(/exceeded the 1000000 bytes allowed/);
  });
});
