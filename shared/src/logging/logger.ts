import { type Logger, pino } from 'pino';

export type { Logger } from 'pino';

/** Paths whose values never reach a log line: keys, credentials and user content. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'req.headers["xi-api-key"]',
  'req.headers["x-key"]',
  'req.headers.cookie',
  'req.query.key',
  'headers.authorization',
  'apiKey',
  'password',
  'secretAccessKey',
  '*.apiKey',
  '*.password',
  '*.secretAccessKey',
  'body.messages',
  'body.input',
  'body.prompt',
];

export interface LoggerOptions {
  readonly level: string;
  readonly name: string;
  /** Where lines go; stdout when omitted. Tests pass a stream to read what was logged. */
  readonly destination?: NodeJS.WritableStream;
}

/** The one way the project makes a logger: JSON lines, secrets redacted, errors under `err`. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.name,
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
      base: { service: options.name },
    },
    options.destination ?? pino.destination({ sync: false }),
  );
}
