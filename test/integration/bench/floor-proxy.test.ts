import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { type LocalRedis, startRedisServer } from '../../../infra/local-services/redis-server.ts';
import { type FakeUpstream, startFakeUpstream } from '../../helpers/fake-upstream.ts';
import { type SpawnedEntry, spawnEntry } from '../../helpers/spawn-entry.ts';

/**
 * The bench's floor proxy (bench/floor-proxy.ts) makes the hops a gateway request makes, and no
 * more: one Redis script call and one upstream call per request, the answer passed back. If it
 * stopped making one of them, the bench's floor rows would understate what the libraries cost.
 */
const ENTRY = 'bench/floor-proxy.ts';
const ANSWER = {
  id: 'chatcmpl-floor',
  object: 'chat.completion',
  created: 1_800_000_000,
  model: 'mock-delay-0',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};

let server: LocalRedis;
let redis: Redis;
let upstream: FakeUpstream;
let proxy: SpawnedEntry;
let url: string;

beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
  upstream = await startFakeUpstream((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(ANSWER));
  });
  const port = await freePort();
  proxy = spawnEntry(ENTRY, {}, ['--port', String(port), '--upstream', upstream.url, '--redis', server.url]);
  url = (await proxy.waitFor(/floor-proxy listening on/)).replace(/^.*listening on /, '').trim();
});

afterAll(async () => {
  proxy?.child.kill('SIGKILL');
  redis?.disconnect();
  await upstream?.close();
  await server?.process.stop();
});

const chat = (model: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }] }),
  });

describe('floor proxy', () => {
  it('makes one script call and one upstream call per request and passes the answer back', async () => {
    const before = upstream.requests.length;
    for (const model of ['mock-delay-0', 'mock-delay-0', 'mock-delay-0-chunks-3']) {
      const response = await chat(model);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(ANSWER);
    }
    expect(await redis.hget('floor:rate', 'requests')).toBe('3');
    const sent = upstream.requests.slice(before);
    expect(sent).toHaveLength(3);
    expect(sent.map((request) => JSON.parse(request.body.toString('utf8')).model)).toEqual([
      'mock-delay-0',
      'mock-delay-0',
      'mock-delay-0-chunks-3',
    ]);
    expect(sent[0]?.url).toBe('/v1/chat/completions');
    expect(sent[0]?.headers.authorization).toBe('Bearer sk-bench-anything');
  });

  it('refuses to start without its three settings', async () => {
    const missing = spawnEntry(ENTRY, {}, ['--port', '1']);
    expect(await missing.exited()).toEqual({ code: 2, signal: null });
    expect(missing.output()).toMatch(/usage: node bench\/floor-proxy\.ts/);
  });

  it('stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const other = spawnEntry(ENTRY, {}, [
      '--port',
      String(port),
      '--upstream',
      upstream.url,
      '--redis',
      server.url,
    ]);
    await other.waitFor(/floor-proxy listening on/);
    other.child.kill('SIGTERM');
    expect(await other.exited()).toEqual({ code: 0, signal: null });
  });
});
