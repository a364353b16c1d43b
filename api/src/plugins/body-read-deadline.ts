import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../../shared/src/errors/app-error.ts';
import { WatchList } from './watch-list.ts';

export interface BodyReadDeadlineOptions {
  /** `BODY_READ_TIMEOUT_MS`: the longest silence between two chunks of a body being read. */
  readonly timeoutMs: number;
  /** Milliseconds now; injected by tests. */
  readonly clock?: () => number;
}

interface Watched {
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  /** The socket's byte count when last seen, and since when it has not moved while being read. */
  bytes: number;
  since: number;
  /** Its place in the watch list; -1 once it left it. */
  at: number;
}

/**
 * A read deadline on every request body (`BODY_READ_TIMEOUT_MS`): while the service is reading a
 * body, the client must send some of it at least every `timeoutMs`; a body that stalls (a
 * truncated upload whose client keeps the connection open, a slow sender) is answered 408 in the
 * spec's format with `Connection: close`, and what was read of it is released.
 *
 * Silence counts only while the body is being read (its stream flowing): a body the service is
 * not reading yet (admission runs first) or has paused (an S3 upload applying backpressure) is
 * not the client's delay. Progress is the socket's byte count, sampled every quarter of the
 * timeout by one timer for the whole server, so a stall is answered between 1× and 1.25× the
 * timeout after the last byte, and a request costs a list entry, not a timer of its own.
 *
 * The stall is delivered as an error event on the request stream, where its reader listens: the
 * JSON body parser answers it through the error handler, the multipart reader ends its parts
 * with it (the transcription upload then aborts its S3 upload). A body nobody listens on is
 * answered directly.
 */
export function registerBodyReadDeadline(app: FastifyInstance, options: BodyReadDeadlineOptions): void {
  const { timeoutMs } = options;
  const clock = options.clock ?? Date.now;
  const period = Math.max(5, Math.floor(timeoutMs / 4));
  // A list, not a Set: see WatchList.
  const watched = new WatchList<Watched>();
  let sweeper: NodeJS.Timeout | undefined;

  function sweep(): void {
    const now = clock();
    watched.forEach((entry) => {
      const raw = entry.request.raw;
      if (raw.complete || raw.destroyed || entry.reply.sent) {
        watched.delete(entry);
        return;
      }
      const bytes = raw.socket?.bytesRead ?? 0;
      if (bytes !== entry.bytes || raw.readableFlowing !== true) {
        entry.bytes = bytes;
        entry.since = now;
        return;
      }
      if (now - entry.since >= timeoutMs) {
        watched.delete(entry);
        expire(entry);
      }
    });
    if (watched.size === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  }

  function expire(entry: Watched): void {
    const error = errors.bodyReadTimeout(timeoutMs);
    const raw = entry.request.raw;
    entry.request.log.info({ bytesRead: entry.bytes, timeoutMs }, 'request body stalled');
    if (raw.listenerCount('error') > 0) raw.emit('error', error);
    else void entry.reply.send(error);
  }

  app.addHook('preParsing', (request, reply, payload, done) => {
    const raw = request.raw;
    // `complete` is only false on a real socket (not under `inject`), with the body still arriving.
    if (raw.complete === false && hasBody(raw)) {
      const entry: Watched = { request, reply, bytes: raw.socket?.bytesRead ?? 0, since: clock(), at: -1 };
      watched.add(entry);
      // Answered (or the connection lost): nothing left to watch.
      reply.raw.once('close', () => watched.delete(entry));
      if (sweeper === undefined) {
        sweeper = setInterval(sweep, period);
        sweeper.unref();
      }
    }
    done(null, payload);
  });

  app.addHook('onClose', (_instance, done) => {
    if (sweeper !== undefined) clearInterval(sweeper);
    sweeper = undefined;
    watched.clear();
    done();
  });
}

function hasBody(raw: IncomingMessage): boolean {
  if (raw.headers['transfer-encoding'] !== undefined) return true;
  const length = raw.headers['content-length'];
  return length !== undefined && length !== '0';
}
