import { type Logger, pino } from 'pino';
import { scrubLogLine } from '../upstream/secret-scrubber.ts';

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

/**
 * The one way the project makes a logger: JSON lines, secrets redacted, errors under `err`.
 *
 * Two layers: `redact` removes the known secret fields by path (headers, `apiKey`…), and the
 * `streamWrite` hook passes every serialized line through the process's secret scrubber
 * (upstream/secret-scrubber.ts), which replaces the configured credentials by value (and key
 * shapes) wherever they sit: in a message, an error's message or stack, any field. That hook, rather
 * than scrubbing at each place that logs upstream text, is the choice because it also covers the
 * places nobody thought of (an undici error quoting a URL, a 4xx message logged at info); it reads
 * the scrubber at each line, so a logger made before `installSecretScrubber` ran (at start, once the
 * configuration is read) scrubs the configured secrets too. A line without a secret or a key shape
 * is written unchanged (a scan, no re-serialization).
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.name,
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      hooks: { streamWrite: scrubLogLine },
      serializers: { err: pino.stdSerializers.err },
      base: { service: options.name },
    },
    options.destination ?? pino.destination({ sync: false }),
  );
}
