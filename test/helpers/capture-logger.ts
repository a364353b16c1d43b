import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../shared/src/logging/logger.ts';

/** A real project logger writing into memory, so a test can read what would have been logged. */
export function captureLogger(level = 'info'): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  const logger = createLogger({ name: 'test', level, destination });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines };
}
