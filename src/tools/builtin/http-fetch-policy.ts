import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where http_fetch may go. Two independent checks, both applied on every hop
 * (redirects included): the URL must match the operator's allowlist, and every
 * address its host resolves to must be public, unless private targets are allowed
 * explicitly. "Public" is an allowlist too: only ipaddr.js's `unicast` range, so
 * loopback, private, link-local, CGNAT, multicast, unspecified, documentation and
 * the IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4, Teredo) are all
 * refused without listing each.
 */

export type ResolvedAddress = { address: string; family: 4 | 6 };
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export type HttpFetchPolicy = {
  /** Host names (`example.com`, `*.example.com`, `*` for any) or URL prefixes (`https://api.example.com/v1/`). */
  allowlist: readonly string[];
  allowPrivate: boolean;
  lookup: HostLookup;
};

export const systemLookup: HostLookup = async (hostname) => {
  const addresses = await dnsLookup(hostname, { all: true, verbatim: true });
  return addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/** JUNCTION_HTTP_FETCH_ALLOWLIST (comma-separated) and JUNCTION_HTTP_FETCH_ALLOW_PRIVATE=true. */
export function policyFromEnv(env: NodeJS.ProcessEnv = process.env): Pick<HttpFetchPolicy, 'allowlist' | 'allowPrivate'> {
  return {
    allowlist: (env['JUNCTION_HTTP_FETCH_ALLOWLIST'] ?? '').split(',').map((entry) => entry.trim()).filter(Boolean),
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

/** URL.hostname keeps the brackets of an IPv6 literal. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/**
 * The address to connect to for this URL's host. Every resolved address must pass,
 * not just the first: a name that also resolves to 127.0.0.1 is a rebinding setup.
 */
export async function resolveTarget(url: URL, policy: HttpFetchPolicy): Promise<ResolvedAddress> {
  const hostname = bareHostname(url);
  const family = isIP(hostname);
  const addresses: ResolvedAddress[] =
    family === 0 ? await policy.lookup(hostname) : [{ address: hostname, family: family === 6 ? 6 : 4 }];
  const first = addresses[0];
  if (!first) throw new Error(`${hostname} did not resolve to any address`);
  if (!policy.allowPrivate) {
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused) throw new Error(`${hostname} resolves to ${refused.address}, a private or reserved address, which http_fetch refuses`);
  }
  return first;
}
