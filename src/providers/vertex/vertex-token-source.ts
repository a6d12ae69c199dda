/**
 * OAuth access tokens for Vertex AI from a service-account key, through google-auth-library:
 * it signs the RS256 JWT assertion, exchanges it at the token endpoint and caches the
 * token until shortly before it expires, sharing one exchange among concurrent callers.
 */
import type { JWT } from 'google-auth-library';
import { z } from 'zod';
import { UpstreamError } from '../upstream-error.ts';
import { GOOGLE_TOKEN_URL, type ServiceAccountKey } from './service-account.ts';

const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** Bearer tokens valid for at least a few more minutes; `refuse` drops one Vertex refused, so the next call exchanges anew. */
export type AccessTokenSource = { token(): Promise<string>; refuse(token: string): void };

/** What a failed exchange looks like from gaxios: the token endpoint's status and its OAuth error body. */
const TokenFailureSchema = z.object({
  status: z.number().optional().catch(undefined),
  code: z.union([z.string(), z.number()]).optional().catch(undefined),
  response: z
    .object({ data: z.object({ error: z.string().optional() }).loose().optional() })
    .loose()
    .optional()
    .catch(undefined),
});

/** One client per key; the library is loaded on the first token, so a gateway without Vertex never loads it. */
export function serviceAccountTokenSource(key: ServiceAccountKey): AccessTokenSource {
  let client: Promise<JWT> | undefined;
  let loaded: JWT | undefined;
  return {
    async token() {
      client ??= createClient(key).then(
        (made) => (loaded = made),
        (error: unknown) => {
          client = undefined;
          throw error;
        },
      );
      let token: string | null | undefined;
      try {
        token = (await (await client).getAccessToken()).token;
      } catch (error) {
        throw tokenError(error);
      }
      if (!token) throw new UpstreamError('the token endpoint answered without an access token', { status: 502, upstreamMessage: 'Vertex AI token endpoint answered without an access token' });
      return token;
    },
    refuse(token) {
      // Marked expired rather than cleared: the JWT client keeps its own placeholder refresh token in these credentials.
      if (loaded && loaded.credentials.access_token === token) loaded.setCredentials({ ...loaded.credentials, expiry_date: 1 });
    },
  };
}

async function createClient(key: ServiceAccountKey): Promise<JWT> {
  const library = await import('google-auth-library');
  // In the compiled server the CommonJS package arrives as a default export only; from source, with named ones.
  const { JWT } = (library as Partial<typeof library>).JWT === undefined ? (library as unknown as { default: typeof library }).default : library;
  const client = new JWT({ email: key.clientEmail, key: key.privateKey, keyId: key.privateKeyId, scopes: [CLOUD_PLATFORM_SCOPE] });
  // The library posts to Google's token URL whatever the key names; the key's token_uri
  // (a private endpoint, a test's fake) is where Google's other libraries send it.
  if (key.tokenUri !== GOOGLE_TOKEN_URL) {
    const tokenUri = new URL(key.tokenUri);
    client.transporter.interceptors.request.add({
      resolved: async (options) => {
        if (options.url.href === GOOGLE_TOKEN_URL) options.url = tokenUri;
        return options;
      },
    });
  }
  return client;
}

/**
 * A refused exchange (a revoked key, a wrong signature) is the deployment's credentials
 * failing, as a 401 from Vertex would be; no answer at all is a network failure.
 */
function tokenError(error: unknown): UpstreamError {
  const failure = TokenFailureSchema.safeParse(error);
  const status = failure.success ? failure.data.status : undefined;
  if (status === undefined) {
    const code = failure.success ? failure.data.code : undefined;
    return new UpstreamError(`Vertex AI token endpoint unreachable: ${describe(error)}`, {
      status: 0,
      network: 'unreachable',
      upstreamMessage: `Vertex AI token endpoint unreachable${code ? ` (${code})` : ''}`,
      cause: error,
    });
  }
  const oauthError = failure.success ? failure.data.response?.data?.error : undefined;
  const refused = status === 400 || status === 401 || status === 403;
  const upstreamMessage = refused ? `the Vertex AI token endpoint refused the service account${oauthError ? ` (${oauthError})` : ''}` : `Vertex AI token endpoint failed with ${status}`;
  return new UpstreamError(upstreamMessage, { status: refused ? 401 : status, upstreamMessage, cause: error });
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
