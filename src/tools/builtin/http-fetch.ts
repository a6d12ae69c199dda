import { request } from 'undici';
import { pinnedAgent } from '../../net/address-guard.ts';
import { z } from 'zod';
import { defineTool } from '../define-tool.ts';
import { htmlToText } from './html-to-text.ts';
import { checkUrl, policyFromEnv, resolveTarget, systemLookup, type HttpFetchPolicy } from './http-fetch-policy.ts';

/**
 * GET a URL for the model, safely: the allowlist and the address policy are
 * checked on every hop (redirects are followed by hand, never by the client), and
 * the connection goes to the very address that was checked (a per-hop dispatcher
 * whose DNS lookup returns it), so a second DNS answer cannot rebind the name to
 * an internal address. TLS still verifies the certificate for the real host name.
 */

export type HttpFetchConfig = HttpFetchPolicy & {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
};

export type HttpFetchResult = {
  url: string;
  status: number;
  content_type: string;
  truncated: boolean;
  text: string;
};

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const TEXT_TYPES = /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json|rss\+xml|atom\+xml)|[^;]*\+(json|xml))/i;

export function httpFetchConfig(overrides: Partial<HttpFetchConfig> = {}, env: NodeJS.ProcessEnv = process.env): HttpFetchConfig {
  return { ...policyFromEnv(env), lookup: systemLookup, maxBytes: 1_000_000, timeoutMs: 15_000, maxRedirects: 5, ...overrides };
}

export async function httpFetch(url: string, config: HttpFetchConfig, signal: AbortSignal): Promise<HttpFetchResult> {
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(config.timeoutMs)]);
  let current = parseUrl(url);
  for (let hop = 0; ; hop += 1) {
    const refusal = checkUrl(current, config.allowlist);
    if (refusal) throw new Error(hop === 0 ? refusal : `redirect refused: ${refusal}`);
    const target = await resolveTarget(current, config).catch((error: Error) => {
      throw new Error(hop === 0 ? error.message : `redirect refused: ${error.message}`);
    });
    const dispatcher = pinnedAgent(target);
    try {
      const response = await request(current, {
        method: 'GET',
        dispatcher,
        signal: deadline,
        headers: { 'user-agent': 'Junction-http_fetch/1', accept: 'text/html,application/json,text/plain;q=0.9,*/*;q=0.5', 'accept-encoding': 'identity' },
      });
      const location = response.headers['location'];
      if (REDIRECT_STATUSES.has(response.statusCode) && typeof location === 'string') {
        await response.body.dump();
        if (hop >= config.maxRedirects) throw new Error(`too many redirects (more than ${config.maxRedirects})`);
        current = parseUrl(location, current);
        continue;
      }
      const contentType = headerText(response.headers['content-type']);
      const { bytes, truncated } = await readCapped(response.body, config.maxBytes);
      return { url: current.href, status: response.statusCode, content_type: contentType, truncated, text: toText(bytes, contentType) };
    } catch (error) {
      if (deadline.aborted && !signal.aborted) throw new Error(`http_fetch timed out after ${config.timeoutMs} ms`);
      throw error;
    } finally {
      await dispatcher.close().catch(() => undefined);
    }
  }
}

function parseUrl(text: string, base?: URL): URL {
  try {
    return new URL(text, base);
  } catch {
    throw new Error(`not a valid URL: ${text}`);
  }
}

const headerText = (value: string | string[] | undefined): string => (Array.isArray(value) ? (value[0] ?? '') : (value ?? ''));

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, maxBytes: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      body.destroy();
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

function toText(bytes: Buffer, contentType: string): string {
  if (contentType !== '' && !TEXT_TYPES.test(contentType)) return `[${contentType} content omitted, ${bytes.length} bytes]`;
  const charset = /charset="?([^";\s]+)/i.exec(contentType)?.[1] ?? 'utf-8';
  let text: string;
  try {
    text = new TextDecoder(charset).decode(bytes);
  } catch {
    text = new TextDecoder('utf-8').decode(bytes);
  }
  return /html/i.test(contentType) ? htmlToText(text) : text;
}

export function createHttpFetchTool(overrides: Partial<HttpFetchConfig> = {}) {
  const config = httpFetchConfig(overrides);
  return defineTool({
    name: 'http_fetch',
    description:
      'Fetches a web page or API resource with an HTTP GET and returns its status, content type and text ' +
      `(HTML is converted to plain text; at most ${config.maxBytes} bytes are read). Only allowlisted sites can be reached.`,
    parameters: z.object({ url: z.url({ protocol: /^https?$/ }).describe('Absolute http(s) URL') }),
    timeout_ms: config.timeoutMs + 1_000,
    execute: ({ url }, context) => httpFetch(url, config, context.signal),
  });
}
