import { createServer } from 'node:net';
import { StackError } from './stack-log.ts';

/**
 * Fails early, before anything starts, when the api could not listen on host:port: another
 * process holds the port, or the host is not an address of this machine.
 */
export async function assertCanListen(host: string, port: number): Promise<void> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port, exclusive: true }, resolve);
    });
  } catch (err) {
    throw new StackError(explain(err, host, port));
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function explain(err: unknown, host: string, port: number): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return `port ${port} on ${host} is already in use; set PORT to a free port.`;
  if (code === 'EACCES') return `not allowed to listen on port ${port}; set PORT to a port above 1023.`;
  const detail = err instanceof Error ? err.message : String(err);
  return `cannot listen on ${host}:${port} (${detail}); check HOST and PORT.`;
}
