import net from 'node:net';
import { Worker } from 'node:worker_threads';

/**
 * A port on 127.0.0.1 where TCP connects hang instead of failing, for connect-timeout tests: a
 * refused connection (closed port) fails at once and is not a timeout. A listening socket whose
 * owner never accepts fills its accept queue (backlog 1 holds two handshakes on Linux); further
 * SYNs are dropped, so a client's connect waits until its own timeout. The socket lives in a
 * worker thread blocked in `Atomics.wait`, so its event loop never calls accept().
 */
export interface UnacceptingPort {
  readonly port: number;
  close(): Promise<void>;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const server = net.createServer();
server.listen({ host: '127.0.0.1', port: 0, backlog: 1 }, () => {
  parentPort.postMessage(server.address().port);
  Atomics.wait(new Int32Array(workerData), 0, 0);
  server.close();
});
`;

export async function startUnacceptingPort(): Promise<UnacceptingPort> {
  const flag = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: flag });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const fillers: net.Socket[] = [];
  // Fill the accept queue until a connect stays pending.
  for (let i = 0; i < 8; i += 1) {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    fillers.push(socket);
    const connected = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true));
      setTimeout(() => resolve(false), 100);
    });
    if (!connected) break;
  }
  return {
    port,
    async close() {
      for (const socket of fillers) socket.destroy();
      const view = new Int32Array(flag);
      Atomics.store(view, 0, 1);
      Atomics.notify(view, 0);
      await worker.terminate();
    },
  };
}
