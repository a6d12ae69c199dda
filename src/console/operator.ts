import type { preHandlerAsyncHookHandler } from 'fastify';
import { JunctionError } from '../core/errors.ts';
import type { Database, Queryable } from '../store/database.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import { roleIn } from './user-repository.ts';

/**
 * The console's operators: the owners of the deployment's default account, the people
 * who set the server up. They may act on every account (grant credit), whichever account
 * their session is in; nobody else may, whatever their role in their own account.
 */
export async function isOperator(db: Queryable, userId: string, defaultAccountId: string): Promise<boolean> {
  return (await roleIn(db, userId, defaultAccountId)) === 'owner';
}

/** A preHandler: a signed-in operator (CSRF-checked when mutating, as every console route). */
export const requireOperator = (db: Database, now: () => Date, defaultAccountId: () => string): preHandlerAsyncHookHandler => {
  const signedIn = requireConsoleUser(db, now);
  return async function (request, reply) {
    await signedIn.call(this, request, reply);
    if (!(await isOperator(db, consoleCaller(request).user.id, defaultAccountId()))) {
      throw new JunctionError('forbidden', "Only the server's operators (owners of its default account) may do this.");
    }
  };
};
