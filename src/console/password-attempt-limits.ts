import { createHash } from 'node:crypto';
import { JunctionError } from '../core/errors.ts';
import type { Queryable } from '../store/database.ts';
import { clearAttemptWindow, hitAttemptWindow, sweepAttemptWindows } from './attempt-window-repository.ts';

/**
 * Attempts allowed per subject and window. The windows are in the database, so a guesser
 * who spreads attempts over several processes or hosts gets no more than on one.
 */
export type AttemptLimit = { scope: string; points: number; durationSeconds: number };

/** 10 wrong passwords per email and address in 15 minutes, 100 sign-ins per address: guessing is slow. */
export const signInsPerEmail: AttemptLimit = { scope: 'sign-in-email', points: 10, durationSeconds: 15 * 60 };
export const signInsPerAddress: AttemptLimit = { scope: 'sign-in-address', points: 100, durationSeconds: 15 * 60 };
/** Passwords set through links (invitations, older set-password links): each costs a scrypt, so many at once from one address are refused. */
export const linkPasswordsPerAddress: AttemptLimit = { scope: 'link-password-address', points: 30, durationSeconds: 15 * 60 };

const SWEEP_MS = 60_000;
let nextSweepAt = 0;

/** Emails and addresses are kept only as digests. */
const subjectHash = (subject: string): Buffer => createHash('sha256').update(subject).digest();

/** Takes one attempt of `limit` for `subject`, or refuses with 429 and when to retry (`what`: the attempts, as the message names them). */
export async function limitAttempt(db: Queryable, now: Date, limit: AttemptLimit, subject: string, what: string): Promise<void> {
  if (now.getTime() >= nextSweepAt) {
    nextSweepAt = now.getTime() + SWEEP_MS;
    await sweepAttemptWindows(db, now);
  }
  const { hits, msLeft } = await hitAttemptWindow(db, { scope: limit.scope, subjectHash: subjectHash(subject), points: limit.points, durationSeconds: limit.durationSeconds, now });
  if (hits <= limit.points) return;
  const seconds = Math.max(1, Math.ceil(msLeft / 1000));
  throw new JunctionError('rate_limit_exceeded', `Too many ${what}; try again in ${seconds} s.`, { headers: { 'retry-after': String(seconds) } });
}

/** Forgets `subject`'s attempts of `limit`. */
export async function forgetAttempts(db: Queryable, limit: AttemptLimit, subject: string): Promise<void> {
  await clearAttemptWindow(db, limit.scope, subjectHash(subject));
}
