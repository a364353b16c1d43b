import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SSE_DONE } from '../../../../api/src/chat/chat-wire.ts';
import { sseResponseBody } from '../../../../api/src/chat/sse-body.ts';

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** What each socket write of the answer carried, and the body the client read. */
async function serve(lines: () => AsyncGenerator<string>): Promise<{ writes: string[]; body: string }> {
  const writes: string[] = [];
  const server = createServer((_req, res: ServerResponse) => {
    const socket = res.socket as Socket & {
      _writeGeneric(writev: boolean, data: unknown, encoding: string, cb: () => void): void;
    };
    const original = socket._writeGeneric.bind(socket);
    socket._writeGeneric = (writev, data, encoding, cb) => {
      const parts = writev ? (data as { chunk: unknown }[]).map(({ chunk }) => chunk) : [data];
      writes.push(parts.map((part) => String(part)).join(''));
      original(writev, data, encoding, cb);
    };
    res.setHeader('content-type', 'text/event-stream');
    sseResponseBody(lines(), res).pipe(res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const body = await new Promise<string>((resolve, reject) => {
    request({ host: '127.0.0.1', port, method: 'POST' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
  return { writes, body };
}

describe('sseResponseBody', () => {
  it('sends the last event and the end of the chunked body in one socket write', async () => {
    const { writes, body } = await serve(async function* () {
      yield 'data: {"n":1}\n\n';
      await new Promise((resolve) => setTimeout(resolve, 5));
      yield 'data: {"n":2}\n\n';
      await new Promise((resolve) => setTimeout(resolve, 5));
      yield `data: {"usage":{}}\n\n${SSE_DONE}`;
    });
    expect(body).toBe(`data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"usage":{}}\n\n${SSE_DONE}`);
    // Headers with the first event, the second event, then the last event with the terminator.
    expect(writes).toHaveLength(3);
    expect(writes[1]).toContain('data: {"n":2}');
    expect(writes[2]).toContain(SSE_DONE);
    expect(writes[2]?.endsWith('0\r\n\r\n')).toBe(true);
  });

  it('sends each event as soon as it is made, and ends a stream the client reads slowly', async () => {
    const big = `data: ${'x'.repeat(256 * 1024)}\n\n`;
    const { writes, body } = await serve(async function* () {
      yield 'data: {"n":1}\n\n';
      await new Promise((resolve) => setTimeout(resolve, 5));
      yield `${big}${SSE_DONE}`;
    });
    expect(body).toBe(`data: {"n":1}\n\n${big}${SSE_DONE}`);
    expect(writes.at(-1)?.endsWith('0\r\n\r\n')).toBe(true);
  });
});
