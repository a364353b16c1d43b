import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The lowest port of the range we pick from. Ports below the kernel's ephemeral range are never
 * handed to `listen(0)` or to an outgoing connection, so a port picked here stays ours between
 * the check and the child's own `listen`, however many servers other tests open meanwhile.
 */
const PICK_FROM = 20_000;
const ATTEMPTS = 50;

/**
 * A free TCP port on 127.0.0.1 for a server that cannot listen on port 0 (a child process told
 * its port). It is picked at random below the ephemeral range and checked by binding it once: a
 * port the kernel hands out (`listen(0)`) could be given to another server in the time between
 * the check and the child's own `listen`, and a readiness probe would then talk to that server.
 */
export async function freePort(): Promise<number> {
  const pickBelow = ephemeralRangeStart();
  if (pickBelow - PICK_FROM < 1_000) return kernelAssignedPort();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = PICK_FROM + Math.floor(Math.random() * (pickBelow - PICK_FROM));
    if (await canListen(port)) return port;
  }
  return kernelAssignedPort();
}

/** The first port of Linux's ephemeral range (32768 when it cannot be read). */
export function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const port = Number(low);
    return Number.isInteger(port) && port > 1024 ? port : 32_768;
  } catch {
    return 32_768;
  }
}

async function canListen(port: number): Promise<boolean> {
  const server = createServer();
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  return listening;
}

async function kernelAssignedPort(): Promise<number> {
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
