import { bareHostname, type HostLookup, resolveTarget as resolveCheckedTarget, type ResolvedAddress } from '../../net/address-guard.ts';

export { bareHostname, isPublicAddress, systemLookup, type HostLookup, type ResolvedAddress } from '../../net/address-guard.ts';

/**
 * Where http_fetch may go. Two independent checks, both applied on every hop
 * (redirects included): the URL must match the operator's allowlist, and every
 * address its host resolves to must be public (net/address-guard.ts), unless
 * private targets are allowed explicitly.
 */

export type HttpFetchPolicy = {
  /** Host names (`example.com`, `*.example.com`, `*` for any) or URL prefixes (`https://api.example.com/v1/`). */
  allowlist: readonly string[];
  allowPrivate: boolean;
  lookup: HostLookup;
};

/** JUNCTION_HTTP_FETCH_ALLOWLIST (comma-separated) and JUNCTION_HTTP_FETCH_ALLOW_PRIVATE=true. */
export function policyFromEnv(env: NodeJS.ProcessEnv = process.env): Pick<HttpFetchPolicy, 'allowlist' | 'allowPrivate'> {
  return {
    allowlist: (env['JUNCTION_HTTP_FETCH_ALLOWLIST'] ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
    allowPrivate: env['JUNCTION_HTTP_FETCH_ALLOW_PRIVATE'] === 'true',
  };
}

/** Why the URL is refused, or undefined when the allowlist and scheme accept it. */
export function checkUrl(url: URL, allowlist: readonly string[]): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https URLs can be fetched, not ${url.protocol}`;
  if (url.username || url.password) return 'URLs with credentials are not allowed';
  if (allowlist.length === 0) return 'http_fetch has no allowlist configured (JUNCTION_HTTP_FETCH_ALLOWLIST)';
  const hostname = bareHostname(url).toLowerCase();
  const allowed = allowlist.some((entry) => (entry.includes('://') ? matchesPrefix(url, entry) : matchesHost(hostname, entry.toLowerCase())));
  return allowed ? undefined : `${url.origin} is not on the http_fetch allowlist`;
}

function matchesHost(hostname: string, entry: string): boolean {
  if (entry === '*') return true;
  if (entry.startsWith('*.')) return hostname.endsWith(entry.slice(1));
  return hostname === entry.replace(/^\[|\]$/g, '');
}

function matchesPrefix(url: URL, entry: string): boolean {
  let prefix: string;
  try {
    prefix = new URL(entry).href;
  } catch {
    return false;
  }
  // Match on path-segment boundaries so "https://a.com/docs" does not admit "https://a.com/docs-private".
  const href = url.href;
  if (href === prefix || prefix.endsWith('/')) return href.startsWith(prefix);
  return href.startsWith(`${prefix}/`) || href.startsWith(`${prefix}?`) || href.startsWith(`${prefix}#`);
}

/** The address to connect to for this URL's host, every one of its addresses checked. */
export const resolveTarget = (url: URL, policy: HttpFetchPolicy): Promise<ResolvedAddress> => resolveCheckedTarget(url, policy, 'http_fetch');
