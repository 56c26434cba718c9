/**
 * Request loggers built on first use. Fastify gives every request a child of the app's logger,
 * bound to the request id, and building a pino child costs several µs, on every request, while
 * most requests write nothing at the levels a hub runs with. This stand-in has a logger's
 * methods and builds the real child only when a message at an enabled level is written or a
 * child of it is asked for, so the lines that are written are exactly those the real child
 * would have written (same bindings, same redaction).
 */
import type { FastifyBaseLogger } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];

class LazyRequestLogger {
  #real: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private real(): FastifyBaseLogger {
    this.#real ??= this.parent.child(this.bindings, this.options);
    return this.#real;
  }

  private write(level: Level, args: unknown[]): void {
    if (this.#real === undefined && !isEnabled(this.parent, level)) return;
    (this.real()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return this.#real?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}
}

/** pino's own check; a logger without one is taken to write everything. */
function isEnabled(logger: FastifyBaseLogger, level: Level): boolean {
  const check = (logger as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled;
  return check === undefined || check.call(logger, level);
}

/** Fastify's `childLoggerFactory`; a route with a level of its own gets its child at once. */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  if (options?.level !== undefined) return logger.child(bindings, options);
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
