import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_PRELOAD, memoryOf } from '../../../bench/memory.ts';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { type LocalRedis, startRedisServer } from '../../../infra/local-services/redis-server.ts';
import { createRedis, type Redis } from '../../../shared/src/redis/redis.ts';
import { type OpenAIUpstream, startOpenAIUpstream } from '../../fakes/openai-upstream.ts';
import { type SpawnedEntry, spawnEntry } from '../../helpers/spawn-entry.ts';

/**
 * The bench's floor proxy (bench/floor-proxy.ts) makes the hops a gateway request makes, and no
 * more: one Redis script call and one upstream call per request, the answer passed back. If it
 * stopped making one of them, the bench's floor rows would understate what the libraries cost.
 * Its upstream here is the fake OpenAI API, holding the key the proxy sends.
 */
const ENTRY = 'bench/floor-proxy.ts';

let server: LocalRedis;
let redis: Redis;
let upstream: OpenAIUpstream;
let proxy: SpawnedEntry;
let url: string;

const start = (port: number) =>
  spawnEntry(ENTRY, {}, [
    '--port',
    String(port),
    '--upstream',
    new URL(upstream.url).origin,
    '--redis',
    server.url,
  ]);

beforeAll(async () => {
  server = await startRedisServer();
  redis = createRedis(server.url);
  upstream = await startOpenAIUpstream({ apiKey: 'sk-bench-anything' });
  proxy = start(await freePort());
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
    const models = ['mock-delay-0', 'mock-delay-0', 'mock-delay-0-chunks-3'];
    for (const model of models) {
      const response = await chat(model);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ object: 'chat.completion', model });
    }
    expect(await redis.hget('floor:rate', 'requests')).toBe('3');
    const sent = upstream.requests.slice(before);
    expect(sent.map((request) => JSON.parse(request.body.toString('utf8')).model)).toEqual(models);
    expect(sent[0]?.url).toBe('/v1/chat/completions');
  });

  it("relays a stream's bytes as the upstream sent them, after its one script call", async () => {
    const before = Number(await redis.hget('floor:rate', 'requests'));
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'mock-delay-0',
        stream: true,
        messages: [{ role: 'user', content: 'hello' }],
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const events = text.split('\n\n').filter((event) => event.startsWith('data: '));
    expect(events.length).toBeGreaterThan(2);
    expect(events.at(-1)).toBe('data: [DONE]');
    // Untouched: the upstream's own chunks (its id and model), not a translation.
    expect(JSON.parse((events[0] as string).slice('data: '.length))).toMatchObject({
      object: 'chat.completion.chunk',
      model: 'mock-delay-0',
    });
    expect(Number(await redis.hget('floor:rate', 'requests'))).toBe(before + 1);
    expect(JSON.parse(upstream.requests.at(-1)?.body.toString('utf8') ?? '{}')).toMatchObject({
      stream: true,
    });
  });

  it("passes the upstream's refusal back with its status", async () => {
    const response = await chat('missing-model');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'model_not_found' } });
  });

  it("tells its memory on SIGUSR2 under the bench's memory preload, as the api does", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-'));
    const recorded = spawnEntry(
      ENTRY,
      { NODE_OPTIONS: `--import ${MEMORY_PRELOAD}`, BENCH_MEMORY_DIR: dir },
      ['--port', String(await freePort()), '--upstream', new URL(upstream.url).origin, '--redis', server.url],
    );
    try {
      await recorded.waitFor(/floor-proxy listening on/);
      const memory = await memoryOf(dir, recorded.child.pid ?? -1);
      expect(memory?.rssMb).toBeGreaterThan(20);
      expect(memory?.oldSpaceMb).toBeGreaterThan(1);
      // The parts add up to the resident set.
      const parts = (memory?.newSpaceMb ?? 0) + (memory?.oldSpaceMb ?? 0) + (memory?.otherHeapMb ?? 0);
      expect(parts + (memory?.outsideHeapMb ?? 0)).toBeCloseTo(memory?.rssMb ?? 0, 6);
    } finally {
      recorded.child.kill('SIGKILL');
    }
  });

  it('refuses to start without its three settings', async () => {
    const missing = spawnEntry(ENTRY, {}, ['--port', '1']);
    expect(await missing.exited()).toEqual({ code: 2, signal: null });
    expect(missing.output()).toMatch(/usage: node bench\/floor-proxy\.ts/);
  });

  it('stops cleanly on SIGTERM', async () => {
    const other = start(await freePort());
    await other.waitFor(/floor-proxy listening on/);
    other.child.kill('SIGTERM');
    expect(await other.exited()).toEqual({ code: 0, signal: null });
  });
});
