import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TrustProxy } from '../config/proxy-env.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** JUNCTION_PUBLIC_URL's origin, when set (see publicOrigin). */
    publicUrl: string | undefined;
  }
}

/** JUNCTION_TRUST_PROXY as fastify's `trustProxy` option: a hop count becomes the function fastify would make of it (its types omit numbers). */
export const fastifyTrustProxy = (trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) => (typeof trust === 'number' ? (_address, hop) => hop < trust : trust);

/** Makes JUNCTION_PUBLIC_URL (an origin, or undefined) the app's public origin. */
export function registerPublicOrigin(app: FastifyInstance, publicUrl: string | undefined): void {
  app.decorate('publicUrl', publicUrl);
}

/**
 * The origin browsers reach this server at (`https://junction.example`), for links the
 * server hands out, the session cookie's Secure flag and the console's CSRF check.
 * JUNCTION_PUBLIC_URL when set: then a client's Host header never reaches a link (an
 * invitation pointing at someone else's host). Otherwise the request's own scheme and
 * host, which X-Forwarded-Proto / -Host change only when the peer is a trusted proxy
 * (JUNCTION_TRUST_PROXY, applied by fastify).
 */
export function publicOrigin(request: FastifyRequest): string {
  const configured = request.server.publicUrl;
  if (configured !== undefined) return configured;
  const fromRequest = `${request.protocol}://${request.host}`;
  try {
    return new URL(fromRequest).origin;
  } catch {
    return fromRequest;
  }
}

/** Whether browsers reach this server over https (cookies are then marked Secure). */
export const isPublicOriginHttps = (request: FastifyRequest): boolean => publicOrigin(request).startsWith('https://');
