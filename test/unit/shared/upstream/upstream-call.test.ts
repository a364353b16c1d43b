import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, errors as undiciErrors } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { callUpstream } from '../../../../shared/src/upstream/upstream-call.ts';
import { classifyTransportError } from '../../../../shared/src/upstream/upstream-client.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A real HTTP server and an agent for it; `closed` counts the connections the server saw end. */
async function upstream(handler: Handler) {
  const server = createServer(handler);
  let closed = 0;
  server.on('connection', (socket) => socket.on('close', () => (closed += 1)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new Agent({ headersTimeout: 2_000, bodyTimeout: 2_000 });
  closers.push(async () => {
    await agent.close().catch(() => undefined);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = (signal?: AbortSignal) =>
    callUpstream(agent, { origin, path: '/v1/x', method: 'POST', body: '{"q":1}' }, signal);
  return { call, closed: () => closed };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  return check();
};

describe('callUpstream', () => {
  it('resolves with the status and headers, then reads the body whole', async () => {
    const { call } = await upstream((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => res.writeHead(201, { 'x-echo': body }).end('{"ok":true}'));
    });
    const answer = await call();
    expect(answer.status).toBe(201);
    expect(answer.headers['x-echo']).toBe('{"q":1}');
    expect(await answer.body.json()).toEqual({ ok: true });
    await expect(answer.body.text()).rejects.toThrow(/already read/);
  });

  it('hands over what one read brought as one piece: a chunked body of 20 chunks sent in one write', async () => {
    // Node corks a response's writes of one turn into one socket write: the 20 HTTP chunks arrive
    // in one read, undici delivers them one by one, and the reader must get them together.
    const events = Array.from({ length: 20 }, (_, i) => `data: {"n":${i}}\n\n`);
    const { call } = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of events) res.write(event);
      res.end();
    });
    const answer = await call();
    const pieces: string[] = [];
    for await (const piece of answer.body) pieces.push(Buffer.from(piece).toString('utf8'));
    expect(pieces).toEqual([events.join('')]);
  });

  it('hands a long body over in order while its reader is slow, pausing the connection meanwhile', async () => {
    const part = Buffer.alloc(16 * 1024, 'a');
    const { call } = await upstream((_req, res) => {
      res.writeHead(200);
      let sent = 0;
      const more = () => {
        while (sent < 128) {
          sent += 1;
          if (!res.write(Buffer.from(part.map((_, i) => 97 + ((sent + i) % 26)))))
            return res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const answer = await call();
    const chunks: Buffer[] = [];
    for await (const chunk of answer.body) {
      chunks.push(Buffer.from(chunk));
      if (chunks.length % 16 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const whole = Buffer.concat(chunks);
    expect(whole.byteLength).toBe(128 * part.byteLength);
    for (let n = 1; n <= 128; n += 1) expect(whole[(n - 1) * part.byteLength]).toBe(97 + (n % 26));
  });

  it('aborts the call when its reader stops early, so the connection is not reused half read', async () => {
    const { call, closed } = await upstream((_req, res) => {
      res.writeHead(200);
      res.write('data: 1\n\n');
      // Never ends: a stream the client walks away from.
    });
    const answer = await call();
    for await (const _chunk of answer.body) break;
    expect(await until(() => closed() === 1)).toBe(true);
  });

  it('rejects with the signal’s reason when aborted before the answer, and breaks the body off after it', async () => {
    const { call } = await upstream((_req, res) => {
      setTimeout(() => {
        res.writeHead(200);
        res.write('partial');
      }, 50);
    });
    // The api's reason when a client goes away (streaming/answer-signal.ts): classified as aborted.
    const early = new AbortController();
    const pending = call(early.signal);
    early.abort(new DOMException('The client went away.', 'AbortError'));
    const gone = await pending.catch((err: unknown) => err);
    expect((gone as Error).message).toBe('The client went away.');
    expect(classifyTransportError(gone).failure).toBe('aborted');

    const before = new AbortController();
    before.abort();
    const refused = await call(before.signal).catch((err: unknown) => err);
    expect((refused as Error).name).toBe('AbortError');
    expect(classifyTransportError(refused).failure).toBe('aborted');

    const late = new AbortController();
    const answer = await call(late.signal);
    setTimeout(() => late.abort(new Error('gone mid-body')), 20);
    await expect(answer.body.text()).rejects.toThrow('gone mid-body');
  });

  it('rejects with undici’s error when nothing answers, which classifies as the failure it is', async () => {
    const refused = await callUpstream(new Agent(), {
      origin: 'http://127.0.0.1:1',
      path: '/',
      method: 'POST',
      body: '',
    }).catch((err: unknown) => err);
    expect(classifyTransportError(refused).failure).toBe('connection');

    const { call } = await upstream(() => undefined);
    const silent = await call().catch((err: unknown) => err);
    expect(silent).toBeInstanceOf(undiciErrors.HeadersTimeoutError);
    expect(classifyTransportError(silent).failure).toBe('timeout');
  });

  it('dumps the rest of a body, giving a long rest up rather than reading it', async () => {
    const { call, closed } = await upstream((req, res) => {
      res.writeHead(200);
      if (req.url === '/v1/x') res.write(Buffer.alloc(512 * 1024));
      // The long rest never ends.
    });
    const answer = await call();
    await answer.body.dump();
    expect(await until(() => closed() === 1)).toBe(true);
  });
});
