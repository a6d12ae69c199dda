import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, LevelWithSilentOrString, Logger } from 'pino';

/**
 * `request.log` without a pino child per request. Fastify's default makes one for every
 * request (`logger.child({ reqId })`, which serializes the bindings at once: about 1% of a
 * gateway call's CPU in profiles), while at the default level most requests log nothing.
 * This one makes the child on the first entry at an enabled level, so a line that is
 * written carries the request id as before.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get level(): LevelWithSilentOrString {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.#logger().level = level;
  }

  get msgPrefix(): string | undefined {
    return this.#logger().msgPrefix;
  }

  // Methods on the prototype, not closures: nothing is allocated per request but the object.
  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }

  #logger(): Logger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  #write(level: Level, args: unknown[]): void {
    // A child of its own level (a route's logLevel) decides for itself.
    if (this.#child === undefined && this.#options.level === undefined && !this.#parent.isLevelEnabled(level)) return;
    const logger = this.#logger();
    (logger[level] as (...entry: unknown[]) => void).apply(logger, args);
  }
}

/** Fastify's `childLoggerFactory`: a LazyChildLogger per request. */
export function lazyChildLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger as Logger, bindings, options);
}
