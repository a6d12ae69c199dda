import { isJunctionError, JunctionError } from '../core/errors.ts';
import { databaseOutageAnswer } from '../store/database-outage-answer.ts';

/**
 * A failed run as its client is told, also in an error frame after the stream began: a
 * database outage is the 503 it is (retry shortly, the caller is not at fault), any other
 * unexpected error an internal_error.
 */
export const agentRunFailure = (error: unknown, message = 'The agent run failed.'): JunctionError =>
  isJunctionError(error) ? error : (databaseOutageAnswer(error) ?? new JunctionError('internal_error', message, { cause: error }));
