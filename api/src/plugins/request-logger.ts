import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, LevelWithSilentOrString } from 'pino';

type Parent = FastifyBaseLogger & {
  isLevelEnabled(level: LevelWithSilentOrString): boolean;
};

/**
 * A request's logger (`request.log`) that makes its pino child, with the request's bindings, only
 * when it writes its first line. Fastify asks for a child logger on every request, and the
 * gateway adds the key and account to it once the key is known; making a pino child and binding
 * to it serialise and redact the bindings each time, a measurable share of a request's time,
 * spent for nothing when the level writes no line for the request (as a busy production api
 * at `warn` writes none for a request that succeeds). Bindings given before the child exists are
 * kept and given to it; a route with its own log level or serializers gets its child at once.
 */
export class RequestLogger {
  readonly #parent: Parent;
  readonly #options: ChildLoggerOptions | undefined;
  #bindings: Bindings;
  #child: Parent | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options?: ChildLoggerOptions) {
    this.#parent = parent as Parent;
    this.#bindings = bindings;
    this.#options = options;
    if (options?.level !== undefined || options?.serializers !== undefined) this.#materialize();
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#materialize().level = level;
  }

  isLevelEnabled(level: LevelWithSilentOrString): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }

  /** Adds bindings to every line this logger writes. */
  setBindings(bindings: Bindings): void {
    if (this.#child === undefined) this.#bindings = { ...this.#bindings, ...bindings };
    else (this.#child as unknown as { setBindings(bindings: Bindings): void }).setBindings(bindings);
  }

  bindings(): Bindings {
    return this.#child === undefined
      ? this.#bindings
      : (this.#child as unknown as { bindings(): Bindings }).bindings();
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#materialize().child(bindings, options);
  }

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

  #write(level: Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.#materialize()[level] as (...line: unknown[]) => void)(...args);
  }

  #materialize(): Parent {
    this.#child ??= this.#parent.child(this.#bindings, this.#options) as Parent;
    return this.#child;
  }
}

/** Fastify's `childLoggerFactory`: a `RequestLogger` for each request. */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
