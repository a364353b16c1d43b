import type { Socket } from 'node:net';

/** How long a closing connection keeps reading (and dropping) what the client still sends. */
export const LINGER_MS = 2_000;

/** Connections closing lingering: already answered, whatever else arrives on them. */
const lingering = new WeakSet<Socket>();

/** Whether this connection is closing lingering (its answer sent; what arrives is dropped). */
export function isLingering(socket: Socket): boolean {
  return lingering.has(socket);
}

/**
 * Closes a connection the way RFC 9112 §9.6 asks when the answer came before the whole request
 * (a refused key, an oversized body or head): the answer is sent and the sending side closed, but
 * what the client is still sending is read and dropped until it stops (its end of the connection
 * closes) or `LINGER_MS` passes. Closing at once would reset the connection under the client,
 * whose stack then throws away the answer it has not read yet (EPIPE/ECONNRESET instead of 413).
 */
export function endLingering(socket: Socket, answer?: string): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  if (answer === undefined) socket.end();
  else socket.end(answer);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('end', () => {
    clearTimeout(timer);
    socket.destroy();
  });
  socket.once('close', () => clearTimeout(timer));
  // Data the http parser no longer takes is read and dropped (a paused socket would hold it).
  socket.resume();
}

/**
 * Makes Node's http server close this connection lingering, when it closes it after a response
 * sent with `Connection: close` (its `destroySoon` once the response is written). Used for
 * answers made before the request body was read.
 */
export function lingerWhenClosed(socket: Socket): void {
  const lingering = socket as Socket & { destroySoon?: () => void };
  lingering.destroySoon = () => endLingering(socket);
}
