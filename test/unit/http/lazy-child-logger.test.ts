import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino, { type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { LazyChildLogger, lazyChildLoggerFactory } from '../../../src/http/lazy-child-logger.ts';

/** request.log makes its pino child only for an entry that is written, and that entry carries the request id. */
function capturedLogger(level: string): { logger: Logger; lines: Array<Record<string, unknown>>; children: () => number } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level }, stream);
  let made = 0;
  const child = logger.child;
  // Counts the children made (the cost this class avoids), without changing what they do;
  // pino's children inherit this method, so it must use the logger it is called on.
  logger.child = function (this: Logger, ...args: Parameters<Logger['child']>) {
    made += 1;
    return child.apply(this, args);
  } as Logger['child'];
  return { logger, lines, children: () => made };
}

describe('LazyChildLogger', () => {
  it('writes nothing and makes no child for entries below the level', () => {
    const { logger, lines, children } = capturedLogger('warn');
    const log = new LazyChildLogger(logger, { reqId: 'req_1' }, {});
    log.info({ req: { url: '/v1/chat/completions' } }, 'incoming request');
    log.debug('detail');
    log.trace('more detail');
    expect(lines).toEqual([]);
    expect(children()).toBe(0);
    expect(log.level).toBe('warn');
  });

  it('writes an entry at an enabled level through one child carrying the bindings', () => {
    const { logger, lines, children } = capturedLogger('warn');
    const log = new LazyChildLogger(logger, { reqId: 'req_2' }, {});
    log.warn({ attempt: 2 }, 'stream ended with an error');
    log.error(new Error('boom'));
    log.fatal('formatted %s', 'message');
    expect(children()).toBe(1);
    expect(lines.map(({ reqId, msg, level }) => ({ reqId, msg, level }))).toEqual([
      { reqId: 'req_2', msg: 'stream ended with an error', level: 40 },
      { reqId: 'req_2', msg: 'boom', level: 50 },
      { reqId: 'req_2', msg: 'formatted message', level: 60 },
    ]);
    expect(lines[0]?.['attempt']).toBe(2);
  });

  it('honours a level of its own (a route logLevel) and a level set later', () => {
    const { logger, lines } = capturedLogger('warn');
    const verbose = new LazyChildLogger(logger, { reqId: 'req_3' }, { level: 'debug' });
    verbose.debug('route-level detail');
    expect(lines.map((line) => line['msg'])).toEqual(['route-level detail']);
    const quiet = new LazyChildLogger(logger, { reqId: 'req_4' }, {});
    quiet.level = 'info';
    quiet.info('now written');
    expect(lines.at(-1)).toMatchObject({ reqId: 'req_4', msg: 'now written' });
  });

  it('gives children with both sets of bindings', () => {
    const { logger, lines } = capturedLogger('info');
    new LazyChildLogger(logger, { reqId: 'req_5' }, {}).child({ run: 'run_1' }).info('step');
    expect(lines.at(-1)).toMatchObject({ reqId: 'req_5', run: 'run_1', msg: 'step' });
  });

  it('is what fastify hands each request as request.log', async () => {
    const { logger, lines } = capturedLogger('warn');
    const app = Fastify({ loggerInstance: logger, childLoggerFactory: lazyChildLoggerFactory, genReqId: () => 'req_fixed' });
    app.get('/', async (request) => {
      request.log.warn('from the handler');
      return { ok: true };
    });
    expect((await app.inject({ url: '/' })).statusCode).toBe(200);
    await app.close();
    expect(lines).toEqual([expect.objectContaining({ reqId: 'req_fixed', msg: 'from the handler' })]);
  });
});
