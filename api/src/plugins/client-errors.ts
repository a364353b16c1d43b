import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type AppError, errors } from '../../../shared/src/errors/app-error.ts';
import { endLingering, isLingering } from './lingering-close.ts';
import { generateRequestId } from './request-context.ts';

/** How often Node looks for heads past `HEADERS_TIMEOUT_MS` (its `connectionsCheckingInterval`). */
export const CONNECTIONS_CHECK_MS = 1_000;

/**
 * What Node's HTTP parser refuses before a request exists (the http server's `clientError` event,
 * Fastify's `clientErrorHandler` option): unknown or lowercase methods, malformed request lines,
 * URLs and headers, Content-Length together with Transfer-Encoding, headers over the size limit,
 * a request not received in time. Each is answered in the spec's error format (without a body
 * to a HEAD request, which may not have one), with the status that fits, `Connection: close`
 * (the parser cannot go on reading this socket) and a request id for support; the connection
 * then closes lingering, so a client still sending reads the answer.
 */
export function clientErrorHandler(
  this: FastifyInstance,
  err: Error & { code?: string; reason?: string; rawPacket?: unknown },
  socket: Socket,
): void {
  // Already answered: the parser fails again on each later chunk of the request being dropped.
  if (isLingering(socket)) return;
  // A reset connection is gone; nothing can be answered.
  if (err.code === 'ECONNRESET' || socket.destroyed) {
    socket.destroy();
    return;
  }
  const appError = parserError(err.code, err.reason);
  const requestId = generateRequestId();
  this.log.info(
    { requestId, code: err.code ?? 'unknown', status: appError.status },
    `client error: ${appError.message}`,
  );
  // A response already started on this socket (a pipelined request) must not be interleaved.
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || pending?.headersSent === true) {
    socket.destroy();
    return;
  }
  // The bytes the parser failed on start with the request line when the request is one chunk
  // (what Node reads at once): that is how a HEAD is told, whose answer may carry no body.
  const packet = err.rawPacket;
  const head = Buffer.isBuffer(packet) && packet.subarray(0, 5).toString('latin1') === 'HEAD ';
  endLingering(socket, rawErrorResponse(appError, requestId, { withBody: !head }));
}

/**
 * A whole HTTP/1.1 error response in the spec's format, for writing straight to a socket. Without
 * its body (`withBody: false`) for a HEAD request: the headers still say what the body would be.
 */
export function rawErrorResponse(
  appError: AppError,
  requestId: string,
  { withBody = true }: { withBody?: boolean } = {},
): string {
  const body = JSON.stringify(appError.toBody());
  const extra = Object.entries(appError.headers)
    .filter(([name]) => name.toLowerCase() !== 'connection')
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status] ?? 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    extra +
    'Connection: close\r\n\r\n' +
    (withBody ? body : '')
  );
}

/**
 * What Node's http server answers by itself unless told otherwise, answered in the spec's format
 * instead: a `CONNECT` (no route tunnels; without a listener Node drops the connection without a
 * byte), and an `Expect` other than `100-continue` (Node's own 417 has no body and no request id).
 */
export function registerProtocolAnswers(app: FastifyInstance): void {
  app.server.on('connect', (request: IncomingMessage, socket: Socket) => {
    const requestId = generateRequestId();
    const appError = errors.routeNotFound('CONNECT', request.url ?? '');
    app.log.info({ requestId, status: appError.status }, 'CONNECT refused');
    endLingering(socket, rawErrorResponse(appError, requestId));
  });
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const requestId = generateRequestId();
    const appError = errors.clientError(
      417,
      `Unsupported Expect header "${request.headers.expect}": only 100-continue is supported.`,
    );
    app.log.info({ requestId, status: appError.status }, 'Expect refused');
    const body = JSON.stringify(appError.toBody());
    response.writeHead(appError.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId,
      connection: 'close',
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
}

/** llhttp's error codes (and Node's timeout) as answers; anything else is a malformed request. */
function parserError(code: string | undefined, reason = ''): AppError {
  // llhttp names this conflict from either side (HPE_INVALID_CONTENT_LENGTH or _TRANSFER_ENCODING).
  if (/can't be present with/.test(reason))
    return errors.clientError(400, 'Content-Length and Transfer-Encoding must not be sent together.');
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errors.clientError(408, 'The request was not received in time.');
    case 'HPE_HEADER_OVERFLOW':
      return errors.clientError(431, 'The request headers are too large.');
    case 'HPE_INVALID_METHOD':
      return errors.clientError(400, 'Unknown HTTP method (methods are upper-case, such as GET or POST).');
    case 'HPE_INVALID_URL':
      return errors.clientError(400, 'The request URL is malformed.');
    case 'HPE_INVALID_CONTENT_LENGTH':
      return errors.clientError(400, 'The Content-Length header is invalid.');
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return errors.clientError(400, 'The chunked request body is malformed.');
    case 'HPE_INVALID_VERSION':
      return errors.clientError(400, 'Unsupported HTTP version: send HTTP/1.1.');
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
    case 'HPE_INVALID_CONSTANT':
      return errors.clientError(400, 'A request header is malformed.');
    default:
      return errors.clientError(400, 'The request is malformed.');
  }
}

/**
 * Requests that reach Fastify but must not reach a route: any request while the server shuts
 * down (503 with `Retry-After`, in place of Fastify's own `return503OnClosing` body), and an
 * HTTP/1.1 request without `Host` (Node's own check answers an empty 400, so it is turned off
 * with `requireHostHeader: false` and made here).
 */
export function registerRequestGate(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, _reply, done) => {
    if (closing) {
      done(errors.shuttingDown());
      return;
    }
    const raw = request.raw;
    if (raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1) {
      done(errors.clientError(400, 'The Host header is required.', { connection: 'close' }));
      return;
    }
    done();
  });
}
