import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { JunctionError } from '../core/errors.ts';

/** 10 wrong passwords per email and address in 15 minutes, 100 sign-ins per address: guessing is slow. */
export const signInsPerEmail = new RateLimiterMemory({ points: 10, duration: 15 * 60, keyPrefix: 'console-login-email' });
export const signInsPerAddress = new RateLimiterMemory({ points: 100, duration: 15 * 60, keyPrefix: 'console-login-ip' });
/** Passwords set through links (invitations, older set-password links): each costs a scrypt, so many at once from one address are refused. */
export const linkPasswordsPerAddress = new RateLimiterMemory({ points: 30, duration: 15 * 60, keyPrefix: 'console-link-password-ip' });

/** Takes one attempt from `limiter` for `key`, or refuses with 429 and when to retry (`what`: the attempts, as the message names them). */
export async function limitAttempt(limiter: RateLimiterMemory, key: string, what: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    const seconds = Math.ceil(error.msBeforeNext / 1000);
    throw new JunctionError('rate_limit_exceeded', `Too many ${what}; try again in ${seconds} s.`, { headers: { 'retry-after': String(seconds) } });
  }
}
