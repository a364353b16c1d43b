/**
 * Sends one generated request and waits for its answer within a deadline. Well-formed requests go
 * through `node:http` on a keep-alive agent (as real clients do); hostile framing (stalled or short
 * bodies, two or negative lengths, length with chunked), headers or paths Node's client refuses to
 * write, and the raw malformed slice go over a plain `node:net` socket, written byte for byte.
 */
import { Agent, request as httpRequest, validateHeaderName, validateHeaderValue } from 'node:http';
import { connect, type Socket } from 'node:net';
import { mp3OfSeconds } from '../../shared/src/file-formats/builders/mp3.ts';
import { solidPng } from '../../shared/src/file-formats/builders/png.ts';
import { randomSequence } from '../../shared/src/file-formats/builders/seed.ts';
import { wavOfSeconds } from '../../shared/src/file-formats/builders/wav.ts';
import { dechunk } from '../helpers/raw-http.ts';
import { toJsonText } from './hostile.ts';
import type { BodySpec, FuzzRequest, HttpFuzzRequest, PartContent } from './requests.ts';

export interface Answer {
  readonly status: number;
  /** Lower-cased names; repeated headers joined by ", " (set-cookie by "\n"). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body's first `BODY_KEEP_BYTES`. */
  readonly body: Buffer;
  readonly bodyBytes: number;
}

export type Outcome =
  | { readonly kind: 'answer'; readonly answer: Answer; readonly ms: number; readonly transport: Transport }
  | {
      readonly kind: 'answerless';
      readonly reason: string;
      readonly ms: number;
      readonly transport: Transport;
      /** Bytes came back, but not an HTTP answer a client can parse (Node's parser refused them). */
      readonly malformed?: boolean;
    };

export type Transport = 'http' | 'raw';

/** What the checks read of a body (a video or an image is only counted past this). */
const BODY_KEEP_BYTES = 2 * 1024 * 1024;

/** A request with its placeholders resolved and its body encoded: what goes on the wire. */
export interface Wire {
  readonly method: string;
  readonly path: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer | undefined;
  readonly framing: HttpFuzzRequest['framing'];
  readonly transport: Transport;
  /** For the raw slice: the whole request. */
  readonly raw?: Buffer;
}

// --- bodies ------------------------------------------------------------------------------------

function partBytes(content: PartContent): Buffer {
  switch (content.type) {
    case 'wav':
      return Buffer.from(wavOfSeconds(content.seconds));
    case 'mp3':
      return Buffer.from(mp3OfSeconds(content.seconds));
    case 'png':
      return Buffer.from(solidPng(4, 4, [200, 20, 20]));
    case 'text':
      return Buffer.from(content.text, 'utf8');
    case 'garbage': {
      const next = randomSequence(content.seed);
      const out = Buffer.alloc(content.bytes);
      for (let i = 0; i < out.length; i += 1) out[i] = Math.floor(next() * 256);
      return out;
    }
  }
}

function multipartBytes(
  body: Extract<BodySpec, { type: 'multipart' }>,
  resolve: (t: string) => string,
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of body.parts) {
    let head = `--${body.boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`, 'utf8'));
    const content =
      part.content.type === 'text' ? { ...part.content, text: resolve(part.content.text) } : part.content;
    chunks.push(partBytes(content), Buffer.from('\r\n'));
  }
  if (!body.unterminated) chunks.push(Buffer.from(`--${body.boundary}--\r\n`));
  const whole = Buffer.concat(chunks);
  return body.keep >= 1 ? whole : whole.subarray(0, Math.floor(whole.length * body.keep));
}

export function encodeBody(body: BodySpec, resolve: (t: string) => string): Buffer {
  switch (body.type) {
    case 'json':
      return Buffer.from(resolve(toJsonText(body.value)), 'utf8');
    case 'text':
      return Buffer.from(resolve(body.text), 'utf8');
    case 'bytes':
      return Buffer.from(body.hex, 'hex');
    case 'multipart':
      return multipartBytes(body, resolve);
  }
}

// --- wire form ---------------------------------------------------------------------------------

/** Whether Node's client would write these headers and this path as they are. */
function nodeAccepts(
  method: string,
  path: string,
  headers: ReadonlyArray<readonly [string, string]>,
): boolean {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(method)) return false;
  if (/[^\u0021-\u00ff]/.test(path)) return false;
  try {
    for (const [name, value] of headers) {
      validateHeaderName(name);
      validateHeaderValue(name, value);
      // Node writes header values as latin1: anything above it would be mangled, not sent as is.
      if (/[\u0100-\uffff]/.test(value)) return false;
    }
  } catch {
    return false;
  }
  return true;
}

/** Resolves placeholders and encodes the body: the bytes this request sends. */
export function toWire(request: FuzzRequest, resolve: (t: string) => string): Wire {
  if (request.kind === 'raw') {
    const text = resolve(request.text);
    const method = text.split(' ', 1)[0] ?? '';
    return {
      method,
      path: text.split(' ')[1] ?? '',
      headers: [],
      body: undefined,
      framing: 'normal',
      transport: 'raw',
      raw: Buffer.from(text, 'latin1'),
    };
  }
  const path = resolve(request.path);
  const headers = request.headers.map(([name, value]) => [name, resolve(value)] as const);
  const body = request.body === undefined ? undefined : encodeBody(request.body, resolve);
  const plain = request.framing === 'normal' || request.framing === 'chunked';
  const transport = plain && nodeAccepts(request.method, path, headers) ? 'http' : 'raw';
  return { method: request.method, path, headers, body, framing: request.framing, transport };
}

/** The request as raw bytes, with the framing it asks for. */
function rawBytes(wire: Wire, host: string): Buffer {
  if (wire.raw !== undefined) return wire.raw;
  const body = wire.body ?? Buffer.alloc(0);
  const lines = [`${wire.method} ${wire.path} HTTP/1.1`, `Host: ${host}`];
  for (const [name, value] of wire.headers) lines.push(`${name}: ${value}`);
  let payload = body;
  switch (wire.framing) {
    case 'normal':
      if (wire.body !== undefined) lines.push(`Content-Length: ${body.length}`);
      break;
    case 'chunked':
      lines.push('Transfer-Encoding: chunked');
      payload = Buffer.concat([
        Buffer.from(`${body.length.toString(16)}\r\n`),
        body,
        Buffer.from('\r\n0\r\n\r\n'),
      ]);
      break;
    case 'stall':
      lines.push(`Content-Length: ${body.length + 1_000}`);
      break;
    case 'short':
      lines.push(`Content-Length: ${Math.floor(body.length / 2)}`);
      break;
    case 'two-lengths':
      lines.push(`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`);
      break;
    case 'negative-length':
      lines.push(`Content-Length: -${body.length}`);
      break;
    case 'garbage-length':
      lines.push(`Content-Length: ${body.length}abc`);
      break;
    case 'length-and-chunked':
      lines.push(`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked');
      break;
  }
  lines.push('Connection: close');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), payload]);
}

// --- sending -----------------------------------------------------------------------------------

export interface Target {
  readonly hostname: string;
  readonly port: number;
  readonly agent: Agent;
}

export function targetOf(origin: string, maxSockets: number): Target {
  const url = new URL(origin);
  return {
    hostname: url.hostname,
    port: Number(url.port),
    agent: new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets }),
  };
}

export function send(target: Target, wire: Wire, deadlineMs: number): Promise<Outcome> {
  return wire.transport === 'http' ? sendHttp(target, wire, deadlineMs) : sendRaw(target, wire, deadlineMs);
}

/** The last exchange on each keep-alive connection, so a reset on reuse can say what came before. */
const lastOnSocket = new WeakMap<Socket, string>();

function sendHttp(target: Target, wire: Wire, deadlineMs: number): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (outcome: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const answerless = (reason: string, malformed = false) =>
      finish({ kind: 'answerless', reason, ms: Date.now() - started, transport: 'http', malformed });
    const req = httpRequest({
      hostname: target.hostname,
      port: target.port,
      method: wire.method,
      path: wire.path,
      agent: target.agent,
    });
    const grouped = new Map<string, string[]>();
    for (const [name, value] of wire.headers) {
      const list = grouped.get(name.toLowerCase()) ?? [];
      list.push(value);
      grouped.set(name.toLowerCase(), list);
    }
    try {
      for (const [name, values] of grouped)
        req.setHeader(name, values.length === 1 ? (values[0] as string) : values);
      if (wire.body !== undefined && wire.framing === 'normal' && !grouped.has('content-length'))
        req.setHeader('content-length', wire.body.length);
      // Node chunks a body without Content-Length only for some methods (not GET, HEAD, DELETE,
      // OPTIONS): named explicitly, every method's body is framed, never sent bare.
      if (wire.body !== undefined && wire.framing === 'chunked')
        req.setHeader('transfer-encoding', 'chunked');
    } catch (err) {
      req.destroy();
      answerless(`client refused the request: ${(err as Error).message}`);
      return;
    }
    const timer = setTimeout(() => {
      answerless(`no complete answer within ${deadlineMs} ms`);
      req.destroy();
    }, deadlineMs);
    let previous: string | undefined;
    let connection: Socket | undefined;
    req.on('socket', (socket) => {
      connection = socket;
      previous = lastOnSocket.get(socket);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const reused =
        previous === undefined
          ? ''
          : ` (on a reused keep-alive connection; its previous exchange: ${previous})`;
      answerless(`${err.code ?? 'error'}: ${err.message}${reused}`, err.code?.startsWith('HPE_') === true);
    });
    req.on('response', (res) => {
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let bodyBytes = 0;
      res.on('data', (chunk: Buffer) => {
        bodyBytes += chunk.length;
        if (keptBytes < BODY_KEEP_BYTES) {
          kept.push(chunk);
          keptBytes += chunk.length;
        }
      });
      res.on('error', (err: NodeJS.ErrnoException) => answerless(`answer cut: ${err.code ?? err.message}`));
      res.on('aborted', () => answerless('answer cut: the connection closed mid-body'));
      res.on('end', () => {
        if (!res.complete) return answerless('answer cut: the connection closed mid-body');
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join('\n') : value;
        }
        if (connection !== undefined)
          lastOnSocket.set(
            connection,
            `${wire.method} ${wire.path.slice(0, 80)} [${wire.framing}, body ${wire.body?.length ?? 'none'}, headers ${wire.headers.map(([n]) => n).join(',')}] → ${res.statusCode} (connection: ${headers.connection ?? 'none'}, ${Date.now() - started} ms)`,
          );
        finish({
          kind: 'answer',
          answer: { status: res.statusCode ?? 0, headers, body: Buffer.concat(kept), bodyBytes },
          ms: Date.now() - started,
          transport: 'http',
        });
      });
    });
    if (wire.body === undefined) req.end();
    else if (wire.framing === 'chunked') {
      // No Content-Length: Node frames the body as chunks.
      const half = Math.floor(wire.body.length / 2);
      req.write(wire.body.subarray(0, half));
      req.end(wire.body.subarray(half));
    } else req.end(wire.body);
  });
}

function sendRaw(target: Target, wire: Wire, deadlineMs: number): Promise<Outcome> {
  const started = Date.now();
  const head = wire.method.toUpperCase() === 'HEAD';
  return new Promise((resolve) => {
    let data = Buffer.alloc(0);
    let done = false;
    const socket = connect(target.port, target.hostname);
    const finish = (outcome: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const answerless = (reason: string) =>
      finish({ kind: 'answerless', reason, ms: Date.now() - started, transport: 'raw' });
    const timer = setTimeout(() => {
      const got = data.length === 0 ? 'nothing' : JSON.stringify(data.subarray(0, 200).toString('latin1'));
      answerless(`no complete answer within ${deadlineMs} ms (got ${got})`);
    }, deadlineMs);
    const tryFinish = (atEnd: boolean) => {
      const parsed = parseAnswer(data, head, atEnd);
      if (parsed !== undefined)
        finish({ kind: 'answer', answer: parsed, ms: Date.now() - started, transport: 'raw' });
      else if (atEnd) {
        const got = data.length === 0 ? 'nothing' : JSON.stringify(data.subarray(0, 200).toString('latin1'));
        answerless(`connection closed without a complete answer (got ${got})`);
      }
    };
    socket.on('connect', () => socket.write(rawBytes(wire, `${target.hostname}:${target.port}`)));
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      tryFinish(false);
    });
    socket.on('end', () => tryFinish(true));
    socket.on('close', () => tryFinish(true));
    // A reset after a complete answer is fine (the server closed while we still wrote); otherwise
    // the 'close' that follows reports what was received.
    socket.on('error', () => undefined);
  });
}

/** Parses one HTTP/1.x answer (after any 1xx interim answers), or undefined while incomplete. */
export function parseAnswer(data: Buffer, head: boolean, atEnd: boolean): Answer | undefined {
  let at = 0;
  for (;;) {
    const headEnd = data.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return undefined;
    const [statusLine = '', ...lines] = data.subarray(at, headEnd).toString('latin1').split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] =
        headers[name] === undefined
          ? value
          : `${headers[name]}${name === 'set-cookie' ? '\n' : ', '}${value}`;
    }
    const rest = data.subarray(headEnd + 4);
    if (status >= 100 && status < 200 && status !== 101) {
      at = headEnd + 4;
      continue;
    }
    const answer = (body: Buffer): Answer => ({
      status,
      headers,
      body: body.subarray(0, BODY_KEEP_BYTES),
      bodyBytes: body.length,
    });
    if (head || status === 204 || status === 304 || status === 101) return answer(Buffer.alloc(0));
    if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
      const body = dechunk(rest);
      return body === undefined ? undefined : answer(body);
    }
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      return rest.length >= length ? answer(rest.subarray(0, length)) : undefined;
    }
    return atEnd ? answer(rest) : undefined;
  }
}
