import type { FastifyReply, FastifyRequest } from 'fastify';
import { isPublicOriginHttps } from '../http/public-origin.ts';

export const SESSION_COOKIE = 'junction_session';

/** One cookie's value from the request's Cookie header. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return decodeURIComponent(part.slice(index + 1).trim());
  }
  return undefined;
}

/** httpOnly (scripts never see it), SameSite=Lax, Secure when browsers reach the server over https (a TLS proxy in front included). */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number): void {
  const secure = isPublicOriginHttps(request) ? '; Secure' : '';
  reply.header('set-cookie', `${SESSION_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`);
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  const secure = isPublicOriginHttps(request) ? '; Secure' : '';
  reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure}`);
}
