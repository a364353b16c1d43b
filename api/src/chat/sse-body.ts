import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pumpedBody } from '../streaming/pumped-body.ts';
import { SSE_DONE } from './chat-wire.ts';

/**
 * The body of a streamed chat answer: the relay's writes, in order, each as soon as it is made
 * (`pumpedBody`). The last one (the write that ends with `data: [DONE]`) is corked, so that it and
 * the end of the chunked body (`0\r\n\r\n`, written by `res.end()` as soon as the body ends, which
 * uncorks) leave in one socket write instead of two. Should the end be slow to come (a client that
 * reads slowly), the cork is lifted at the next turn of the event loop anyway.
 */
export function sseResponseBody(lines: AsyncGenerator<string>, res: ServerResponse): Readable {
  return pumpedBody(lines, (line) => {
    // The socket, not the response: a corked response keeps its chunks apart and writes them
    // after what `end()` sends, the body's terminator, on Node 24.
    const socket = res.socket;
    if (socket === null || !line.endsWith(SSE_DONE)) return;
    socket.cork();
    setImmediate(() => socket.uncork());
  });
}
