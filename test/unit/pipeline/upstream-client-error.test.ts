import { describe, expect, it } from 'vitest';
import { errorBody } from '../../../src/http/error-shapes.ts';
import { DEFAULT_UPSTREAM_RETRY_AFTER_SECONDS, toClientError } from '../../../src/pipeline/upstream-attempts.ts';
import { UpstreamError } from '../../../src/providers/upstream-error.ts';

const rateLimited = (retryAfterSeconds?: number) =>
  new UpstreamError('POST /v1/chat/completions failed with 429', { status: 429, upstreamMessage: 'slow down', ...(retryAfterSeconds !== undefined && { retryAfterSeconds }) });

describe('an upstream 429 after the retries, as the caller sees it', () => {
  it("keeps 429 with the provider's wait, rounded up to whole seconds (at least one)", () => {
    expect(toClientError(rateLimited(1.2), undefined)).toMatchObject({ status: 429, code: 'upstream_rate_limited', headers: { 'retry-after': '2' } });
    expect(toClientError(rateLimited(0), undefined).headers).toEqual({ 'retry-after': '1' });
  });

  it('asks for a default wait when the provider gave none', () => {
    const error = toClientError(rateLimited(), undefined);
    expect(error.headers).toEqual({ 'retry-after': String(DEFAULT_UPSTREAM_RETRY_AFTER_SECONDS) });
    expect(error.message).toContain('slow down');
  });

  it('carries the wait into the Google shape as RetryInfo', () => {
    expect(errorBody(toClientError(rateLimited(3), undefined), 'google')).toMatchObject({
      error: { code: 429, status: 'RESOURCE_EXHAUSTED', details: [{ reason: 'upstream_rate_limited' }, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }] },
    });
    expect(errorBody(toClientError(rateLimited(3), undefined), 'anthropic')).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });
});
