import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, databaseOutageOf } from '../../../src/store/connection-errors.ts';
import { databaseOutageAnswer } from '../../../src/store/database-outage-answer.ts';

/** An error as node-postgres reports one from the server: its SQLSTATE in `code`. */
const serverError = (code: string, message = 'refused') => Object.assign(new Error(message), { code });

describe('database outage classification', () => {
  it.each([
    ['3D000', 'database "junction" does not exist'],
    ['28000', 'role "junction" is not permitted to log in'],
    ['28P01', 'password authentication failed for user "junction"'],
    ['53300', 'too many connections for role "junction"'],
    ['53100', 'could not extend file: No space left on device'],
    ['57P01', 'terminating connection due to administrator command'],
    ['57P03', 'the database system is starting up'],
    ['57P04', 'database dropped'],
    ['08006', 'connection failure'],
    ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'],
  ])('takes SQLSTATE or errno %s as the database being unusable', (code, message) => {
    expect(databaseOutageOf(serverError(code, message))).toBe('unreachable');
  });

  it('decides on the code, not the message, where there is a code', () => {
    // 55000 is also a statement's error (currval before nextval): only where it arose makes it an outage.
    expect(databaseOutageOf(serverError('55000', 'database "junction" is not currently accepting connections'))).toBeUndefined();
    expect(databaseOutageOf(serverError('42601', 'Connection terminated'))).toBeUndefined();
    expect(databaseOutageOf(serverError('23505', 'duplicate key value violates unique constraint'))).toBeUndefined();
    expect(databaseOutageOf(serverError('57014', 'canceling statement due to user request'))).toBeUndefined();
    expect(databaseOutageOf(new Error('boom'))).toBeUndefined();
  });

  it('takes a failure to get a connection as an outage whatever its code, keeping its kind', () => {
    const refused = serverError('55000', 'database "junction" is not currently accepting connections');
    expect(databaseOutageOf(new DatabaseUnavailableError('unreachable', refused))).toBe('unreachable');
    expect(databaseOutageOf(new DatabaseUnavailableError('busy', new Error('timeout exceeded when trying to connect')))).toBe('busy');
    expect(databaseOutageOf(new Error('wrapped', { cause: new DatabaseUnavailableError('busy', undefined) }))).toBe('busy');
  });

  it('reads the codeless connection losses of node-postgres and dual-stack connect failures', () => {
    expect(databaseOutageOf(new Error('Connection terminated unexpectedly'))).toBe('unreachable');
    expect(databaseOutageOf(new AggregateError([serverError('ECONNREFUSED'), serverError('ECONNREFUSED')]))).toBe('unreachable');
  });

  it('answers 503 with Retry-After, saying "busy" only when the pool is full', () => {
    const unreachable = databaseOutageAnswer(serverError('3D000'));
    const busy = databaseOutageAnswer(new DatabaseUnavailableError('busy', new Error('timeout exceeded when trying to connect')));
    expect(unreachable).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'retry-after': '2' } });
    expect(busy).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'retry-after': '2' } });
    expect(unreachable?.message).toMatch(/cannot use its database/);
    expect(busy?.message).toMatch(/busy/);
    expect(busy?.message).not.toMatch(/cannot/);
    expect(databaseOutageAnswer(serverError('23505'))).toBeUndefined();
  });
});
