import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { type ListeningApp, startListeningApp } from '../../helpers/listening-app.ts';
import { openSocket, portOf, type RawResponse, rawRequest, readResponse } from '../../helpers/raw-http.ts';

let t: ListeningApp;
let port: number;
beforeAll(async () => {
  t = await startListeningApp({
    env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, BODY_READ_TIMEOUT_MS: '400', HEADERS_TIMEOUT_MS: '1000' },
  });
  port = portOf(t.origin);
});
afterAll(() => t.close());

/** The spec's error body, with `param: null`, and the headers every error answer carries. */
function expectEnvelope(res: RawResponse, status: number, message?: RegExp): void {
  expect(res.status, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['x-request-id']).toMatch(/^req_/);
  const body = JSON.parse(res.body) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toEqual({
    message: expect.any(String),
    type: expect.any(String),
    code: expect.anything(),
    param: null,
  });
  expect(body.error.type).toBe(status === 503 ? 'upstream_error' : 'invalid_request_error');
  if (message !== undefined) expect(String(body.error.message)).toMatch(message);
}

const host = 'Host: 127.0.0.1\r\n';

describe("Node's parser errors are answered in the spec's format, and the connection closed", () => {
  const cases: Array<[string, string, number, RegExp]> = [
    ['a lowercase method', `get /v1/models HTTP/1.1\r\n${host}\r\n`, 400, /method/],
    ['an unknown method', `FETCH /v1/models HTTP/1.1\r\n${host}\r\n`, 400, /method/],
    ['a URL with a space', `GET /v1/mo dels HTTP/1.1\r\n${host}\r\n`, 400, /malformed/],
    ['a URL without a leading slash', `GET v1/models HTTP/1.1\r\n${host}\r\n`, 400, /URL/],
    [
      'Content-Length with Transfer-Encoding',
      `POST /v1/chat/completions HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      400,
      /Content-Length and Transfer-Encoding/,
    ],
    [
      'two Content-Lengths',
      `POST /v1/embeddings HTTP/1.1\r\n${host}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      400,
      /.+/,
    ],
    ['a malformed header', `GET /v1/models HTTP/1.1\r\n${host}Bad Header: x\r\n\r\n`, 400, /header/],
    [
      'a malformed chunk',
      `POST /v1/embeddings HTTP/1.1\r\n${host}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      400,
      /chunked/,
    ],
    ['an unknown HTTP version', `GET /v1/models HTTP/7.1\r\n${host}\r\n`, 400, /.+/],
    ['bytes that are not HTTP', 'hello there\r\n\r\n', 400, /.+/],
    [
      'a 20 KB header',
      `GET /v1/models HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      /too large/,
    ],
  ];
  for (const [name, bytes, status, message] of cases) {
    it(`${name} → ${status}`, async () => {
      const res = await rawRequest(port, bytes);
      expectEnvelope(res, status, message);
      expect(res.headers.connection).toBe('close');
      expect(res.closed).toBe(true);
    });
  }

  it('logs each with its request id, never as a failure', async () => {
    const res = await rawRequest(port, `get /v1/models HTTP/1.1\r\n${host}\r\n`);
    const line = t.logs().find((entry) => entry.requestId === res.headers['x-request-id']);
    expect(line).toMatchObject({ code: 'HPE_INVALID_METHOD', status: 400 });
  });
});

/** Sends raw bytes and collects everything the server sends until it closes the connection. */
async function rawExchange(bytes: string): Promise<string> {
  const socket = await openSocket(port);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => reject(new Error('the server did not close the connection')), 5_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(bytes);
  });
}

/** A request through Node's own client, whose body may still be on its way when the answer comes. */
function clientRequest(
  method: string,
  path: string,
  headers: Record<string, string | number>,
  body?: Buffer,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('what Node answers by itself is answered in the format too', () => {
  it('CONNECT → 404 naming the route, not a dropped connection', async () => {
    const res = await rawRequest(port, `CONNECT 127.0.0.1:443 HTTP/1.1\r\n${host}\r\n`);
    expectEnvelope(res, 404, /Unknown route: CONNECT/);
    expect(res.closed).toBe(true);
  });

  it('an Expect other than 100-continue → 417 with a body and a request id', async () => {
    const res = await rawRequest(port, `GET /v1/models HTTP/1.1\r\n${host}Expect: teapot\r\n\r\n`);
    expectEnvelope(res, 417, /Expect/);
  });

  it('a HEAD refused by the parser → its status and headers, no body', async () => {
    const answer = await rawExchange(
      `HEAD /v1/models HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toMatch(/\r\nX-Request-Id: req_/);
    expect(answer.endsWith('\r\n\r\n')).toBe(true);
  });

  it('a head that never completes → 408 within HEADERS_TIMEOUT_MS, not held for a minute', async () => {
    const res = await rawRequest(port, 'GET /v1/models\r\n', 4_000);
    expectEnvelope(res, 408, /not received in time/);
    expect(res.ms).toBeLessThan(3_000);
    expect(res.closed).toBe(true);
  });
});

describe('an answer that comes before the whole request is read by a client still sending', () => {
  it('headers over the limit: 431, not EPIPE or a reset', async () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 2_000; i++) headers[`x-h${i}`] = 'v';
    for (let i = 0; i < 5; i++) {
      const res = await clientRequest('GET', '/v1/models', headers);
      expect(res.status).toBe(431);
    }
  });

  it('a large body refused on its head (no operator token; no key; over the limit): 401 / 401 / 413, not EPIPE or a reset', async () => {
    const large = Buffer.alloc(4 * 1024 * 1024, 'a');
    const overLimit = Buffer.alloc(t.config.maxBodyBytes + 4 * 1024 * 1024, 'a');
    const { key } = await createFundedKey(t.app, { topUp: 1_000 });
    const postJson = (path: string, body: Buffer, headers: Record<string, string> = {}) =>
      clientRequest(
        'POST',
        path,
        { 'content-type': 'application/json', 'content-length': body.length, ...headers },
        body,
      );
    for (let i = 0; i < 5; i++) {
      // The key is checked before the body is read: no key, no reading.
      expect((await postJson('/v1/chat/completions', overLimit)).status).toBe(401);
      expect((await postJson('/admin/v1/accounts', large)).status).toBe(401);
      const tooLarge = await postJson('/v1/chat/completions', overLimit, { authorization: `Bearer ${key}` });
      expect(tooLarge.status).toBe(413);
      expect(JSON.parse(tooLarge.body)).toMatchObject({ error: { type: 'invalid_request_error' } });
    }
  });
});

describe('requests Fastify routes answer in the format too', () => {
  it('a request without Host (HTTP/1.1) → 400, closed; HTTP/1.0 needs none', async () => {
    const res = await rawRequest(port, 'GET /v1/models HTTP/1.1\r\n\r\n');
    expectEnvelope(res, 400, /Host/);
    expect(res.closed).toBe(true);
    const old = await rawRequest(port, 'GET /v1/models HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
  });

  it('a malformed percent-encoding or absolute URL → 400 (Fastify’s bad URL)', async () => {
    for (const target of ['/v1/models/%zz', 'http://[::1/v1/models']) {
      const res = await rawRequest(port, `GET ${target} HTTP/1.1\r\n${host}\r\n`);
      expectEnvelope(res, 400, /URL/);
    }
  });

  it('a method Node knows but no route has → 404 naming the route', async () => {
    for (const method of ['PROPFIND', 'PUT', 'DELETE']) {
      const res = await rawRequest(port, `${method} /v1/models HTTP/1.1\r\n${host}Content-Length: 0\r\n\r\n`);
      expectEnvelope(res, 404, new RegExp(`Unknown route: ${method} /v1/models`));
    }
  });

  it('malformed JSON → 400 and a body over the limit → 413 with the connection closed', async () => {
    const bad = await rawRequest(
      port,
      `POST /admin/v1/accounts HTTP/1.1\r\n${host}Authorization: Bearer ${TEST_ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{"email":`,
    );
    expectEnvelope(bad, 400, /not valid JSON/);
    const large = await rawRequest(
      port,
      `POST /admin/v1/accounts HTTP/1.1\r\n${host}Authorization: Bearer ${TEST_ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${t.config.maxBodyBytes + 1}\r\n\r\n{`,
    );
    expectEnvelope(large, 413);
    expect(large.closed).toBe(true);
  });

  it('a preflight without Origin is no text/plain 400', async () => {
    const res = await rawRequest(port, `OPTIONS /v1/chat/completions HTTP/1.1\r\n${host}\r\n`);
    expect(res.status).toBe(204);
  });
});

describe('a body that stops arriving (BODY_READ_TIMEOUT_MS)', () => {
  it('answers 408 within the deadline, closes the connection, and the next request is served', async () => {
    const { key } = await createFundedKey(t.app, { topUp: 1_000 });
    const body = JSON.stringify({ model: 'demo/embedding', input: 'hello world' });
    const socket = await openSocket(port);
    try {
      const started = Date.now();
      const answer = readResponse(socket, 5_000, started);
      // Content-Length is right, but only half of the body is sent; the connection stays open.
      socket.write(
        `POST /v1/embeddings HTTP/1.1\r\n${host}Authorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      );
      const res = await answer;
      expectEnvelope(res, 408, /stopped arriving/);
      expect(res.headers.connection).toBe('close');
      expect(res.closed).toBe(true);
      expect(res.ms).toBeGreaterThanOrEqual(380);
      expect(res.ms).toBeLessThan(2_000);
    } finally {
      socket.destroy();
    }
    const whole = await rawRequest(
      port,
      `POST /v1/embeddings HTTP/1.1\r\n${host}Authorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(whole.status, whole.body).toBe(200);
  });

  it('does not count silence while the body is not being read, only the client’s', async () => {
    // A body sent slowly but steadily (a chunk every 150 ms, deadline 400 ms) is read to its end.
    const { key } = await createFundedKey(t.app, { topUp: 1_000 });
    const body = JSON.stringify({ model: 'demo/embedding', input: 'slow but steady' });
    const socket = await openSocket(port);
    try {
      const answer = readResponse(socket, 10_000);
      socket.write(
        `POST /v1/embeddings HTTP/1.1\r\n${host}Authorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      for (let at = 0; at < body.length; at += 8) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        socket.write(body.slice(at, at + 8));
      }
      const res = await answer;
      expect(res.status, res.body).toBe(200);
    } finally {
      socket.destroy();
    }
  });
});

describe('while the server shuts down', () => {
  it('a request arriving on an open connection answers 503 in the format, with Retry-After', async () => {
    const closingApp = await startListeningApp();
    const socket = await openSocket(portOf(closingApp.origin));
    try {
      const answer = readResponse(socket);
      // Headers begun (the connection is busy, so closing waits for it), finished once closing.
      socket.write(`GET /v1/models HTTP/1.1\r\n${host}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const closed = closingApp.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.write('\r\n');
      const res = await answer;
      expectEnvelope(res, 503, /restarting/);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers.connection).toBe('close');
      await closed;
    } finally {
      socket.destroy();
    }
  });
});
