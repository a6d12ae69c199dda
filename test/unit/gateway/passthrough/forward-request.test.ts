import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { forwardToProvider, responseHeaders } from '../../../../src/gateway/passthrough/forward-request.ts';

describe('pass-through forwarding', () => {
  it("drops the provider account's cookies and organization from the answer", () => {
    const headers = responseHeaders({
      'content-type': 'application/json',
      'set-cookie': ['__cf_bm=x; path=/'],
      'openai-organization': 'org-provider',
      'openai-project': 'proj_provider',
      'transfer-encoding': 'chunked',
      'x-request-id': 'req_1',
    });
    expect(headers).toEqual({ 'content-type': 'application/json', 'x-request-id': 'req_1' });
  });

  it("does not name the provider's origin when it cannot be reached", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await forwardToProvider(
      { id: 'openai', kind: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-provider' },
      { method: 'GET', pathAndQuery: '/files?limit=1', headers: {}, body: undefined, signal: new AbortController().signal, identityEncoding: false },
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'upstream_error', message: 'Could not reach openai (GET /files).' });
    expect(String((error as Error).message)).not.toContain(String(port));
  });
});
