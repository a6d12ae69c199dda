import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * Which peers may tell the server, in X-Forwarded-Proto / -Host / -For, the scheme, host
 * and client address a request really had: `false` (none), `true` (every peer), a hop
 * count, or the proxies' addresses and CIDR ranges. These are the forms fastify's
 * `trustProxy` takes.
 */
export type TrustProxy = boolean | number | string[];

/** Address groups proxy-addr (fastify's trustProxy) knows by name. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const TRUST_PROXY_FORMS = 'true, false, a hop count (1), or a comma-separated list of addresses, CIDR ranges (10.0.0.0/8) and loopback, linklocal, uniquelocal';

const isAddressOrRange = (entry: string): boolean => {
  if (NAMED_RANGES.has(entry) || isIP(entry) !== 0) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  if (prefix === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefix)) return false;
  const family = isIP(address);
  return family !== 0 && Number(prefix) <= (family === 4 ? 32 : 128);
};

/** JUNCTION_TRUST_PROXY; unset trusts no peer, so forwarded headers are ignored. */
export const TrustProxySchema = z
  .string()
  .optional()
  .transform((value, context): TrustProxy => {
    const text = value?.trim() ?? '';
    if (text === '' || text === 'false') return false;
    if (text === 'true') return true;
    if (/^\d+$/.test(text)) return Number(text) === 0 ? false : Number(text);
    const entries = text.split(',').map((entry) => entry.trim());
    const wrong = entries.find((entry) => !isAddressOrRange(entry));
    if (wrong !== undefined) {
      context.addIssue({ code: 'custom', message: `'${wrong}' is not an address or a range; give ${TRUST_PROXY_FORMS}` });
      return z.NEVER;
    }
    return entries;
  });

/**
 * JUNCTION_PUBLIC_URL: the origin browsers use to reach the console (`https://junction.example`),
 * kept as that origin. It wins over anything a request says about its own scheme and host.
 */
export const PublicUrlSchema = z
  .string()
  .optional()
  .transform((value, context): string | undefined => {
    const text = value?.trim() ?? '';
    if (text === '') return undefined;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      context.addIssue({ code: 'custom', message: `'${text}' is not a URL; write it as https://host[:port]` });
      return z.NEVER;
    }
    // The console is served at the root, and links are built by appending paths to this origin.
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
      context.addIssue({
        code: 'custom',
        message: `'${text}' must be an http or https origin without a path, query or credentials; write it as ${url.protocol.startsWith('http') ? url.origin : 'https://host[:port]'}`,
      });
      return z.NEVER;
    }
    return url.origin;
  });
