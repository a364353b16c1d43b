import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ephemeralRangeStart, freePort } from '../../../infra/local-services/free-port.ts';

const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('freePort', () => {
  afterEach(() => vi.restoreAllMocks());

  it('picks a port below the ephemeral range, where listen(0) never lands, that can be listened on', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(ephemeralRangeStart());
    await close(await listen(port));
  });

  it('passes over a port that is taken', async () => {
    const taken = await freePort();
    const holder = await listen(taken);
    try {
      const span = ephemeralRangeStart() - 20_000;
      const takenDraw = (taken - 20_000 + 0.5) / span;
      vi.spyOn(Math, 'random').mockReturnValueOnce(takenDraw).mockReturnValueOnce(takenDraw);
      const port = await freePort();
      expect(port).not.toBe(taken);
      await close(await listen(port));
    } finally {
      await close(holder);
    }
  });

  it('falls back to a port the kernel assigns when every pick is taken', async () => {
    const taken = await freePort();
    const holder = await listen(taken);
    try {
      const takenDraw = (taken - 20_000 + 0.5) / (ephemeralRangeStart() - 20_000);
      const draws = vi.spyOn(Math, 'random').mockReturnValue(takenDraw);
      const port = await freePort();
      expect(draws).toHaveBeenCalledTimes(50);
      expect(port).not.toBe(taken);
      expect(port).toBeGreaterThanOrEqual(ephemeralRangeStart());
      await close(await listen(port));
    } finally {
      await close(holder);
    }
  });
});
