import { connect, type Socket } from 'node:net';

export interface RawResponse {
  readonly status: number;
  /** Lower-cased header names. */
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Whether the server closed the connection after answering. */
  readonly closed: boolean;
  /** Milliseconds from the first byte sent to the end of the answer. */
  readonly ms: number;
}

/** `http://127.0.0.1:1234` → its port. */
export function portOf(origin: string): number {
  return Number(new URL(origin).port);
}

/** Opens a plain TCP connection to the server. */
export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Reads one HTTP/1.1 answer from `socket` (status, headers, a Content-Length or chunked body),
 * within `timeoutMs`; `closed` tells whether the server then closed the connection (awaited
 * briefly).
 */
export function readResponse(
  socket: Socket,
  timeoutMs = 5_000,
  startedAt = Date.now(),
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    let closed = socket.destroyed;
    let parsed: Omit<RawResponse, 'closed' | 'ms'> | undefined;
    let finishing = false;
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no complete answer within ${timeoutMs} ms; got: ${JSON.stringify(data.toString())}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', onError);
    };
    const finish = () => {
      if (finishing || parsed === undefined) return;
      finishing = true;
      const ms = Date.now() - startedAt;
      const done = () => {
        cleanup();
        resolve({ ...(parsed as Omit<RawResponse, 'closed' | 'ms'>), closed, ms });
      };
      // Give the server a moment to close the connection after its answer.
      if (closed) done();
      else setTimeout(done, 150);
    };
    const onData = (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      parsed ??= tryParse(data);
      if (parsed !== undefined) finish();
    };
    const onClose = () => {
      closed = true;
      parsed ??= tryParse(data, true);
      if (parsed === undefined) {
        cleanup();
        reject(new Error(`connection closed without an answer; got: ${JSON.stringify(data.toString())}`));
      } else if (finishing) {
        // resolved by the pending timer with closed = true
      } else finish();
    };
    const onError = () => undefined;
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('error', onError);
  });
}

/** Sends raw bytes on a new connection and reads the answer. */
export async function rawRequest(
  port: number,
  bytes: string | Buffer,
  timeoutMs = 5_000,
): Promise<RawResponse> {
  const socket = await openSocket(port);
  try {
    const startedAt = Date.now();
    const answer = readResponse(socket, timeoutMs, startedAt);
    socket.write(bytes);
    return await answer;
  } finally {
    socket.destroy();
  }
}

function tryParse(data: Buffer, atEnd = false): Omit<RawResponse, 'closed' | 'ms'> | undefined {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine = '', ...lines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = data.subarray(headEnd + 4);
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (rest.length < length) return undefined;
    return { status, headers, body: rest.subarray(0, length).toString('utf8') };
  }
  if (headers['transfer-encoding'] === 'chunked') {
    const body = dechunk(rest);
    return body === undefined ? undefined : { status, headers, body: body.toString('utf8') };
  }
  return atEnd || status === 204 || status === 304
    ? { status, headers, body: rest.toString('utf8') }
    : undefined;
}

/** A whole chunked body's data, or undefined while its last chunk has not arrived (or it is malformed). */
export function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
