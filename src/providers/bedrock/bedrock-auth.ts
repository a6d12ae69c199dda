/**
 * How a Bedrock call proves who sends it: a Bedrock API key as a bearer (the deployment's
 * `api_key_env`, or AWS_BEARER_TOKEN_BEDROCK), else AWS Signature Version 4 over the exact
 * bytes sent, with the operator's AWS credentials, by Smithy's signer (the AWS SDK's own).
 * Credentials only ever come from the operator's environment, never from a request.
 */
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { ProviderConfig } from '../adapter.ts';

export type AwsCredentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

/** ProviderConfig.bedrock: the signing region and, without an API key, the credentials that sign. */
export type BedrockSettings = { region: string; credentials?: AwsCredentials };

/** The service name SigV4 signs Bedrock's runtime calls for. */
const SIGNING_SERVICE = 'bedrock';

/** Headers that authenticate one POST of `body` to `path` (after the base URL): content type and accept included, as they are signed. */
export type BedrockAuthenticator = (path: string, body: string, accept: string) => Promise<Record<string, string>>;

export function bedrockAuthenticator(config: ProviderConfig): BedrockAuthenticator {
  const base = { 'content-type': 'application/json', accept: '' };
  if (config.apiKey !== undefined) {
    const authorization = `Bearer ${config.apiKey}`;
    return (_path, _body, accept) => Promise.resolve({ ...base, accept, authorization });
  }
  const settings = config.bedrock;
  if (settings?.credentials === undefined) {
    // configured-providers never builds one, but a config made elsewhere must fail loudly, not unsigned.
    return () => Promise.reject(new Error(`Bedrock provider ${config.id} has neither an API key nor AWS credentials`));
  }
  // One signer per provider: it caches the day's signing key.
  const signer = new SignatureV4({ service: SIGNING_SERVICE, region: settings.region, credentials: settings.credentials, sha256: Hash.bind(null, 'sha256') });
  const root = config.baseUrl.replace(/\/+$/, '');
  return async (path, body, accept) => {
    const url = new URL(root + path);
    for (const [name, value] of Object.entries(config.query ?? {})) url.searchParams.set(name, value);
    const signed = await signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === '' ? {} : { port: Number(url.port) }),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...base, accept, host: url.host },
      body,
    });
    return signed.headers;
  };
}

/** The region in a Bedrock runtime address (`bedrock-runtime.eu-west-1.amazonaws.com`, the FIPS one too), if it is one. */
export function regionOfBedrockUrl(baseUrl: string): string | undefined {
  try {
    return /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/.exec(new URL(baseUrl).hostname)?.[1];
  } catch {
    return undefined;
  }
}
