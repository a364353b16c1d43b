import { createServer } from 'node:net';

/** Asks the kernel for a free TCP port on 127.0.0.1 (for servers that cannot listen on port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address was assigned');
  return address.port;
}
