/**
 * The bench's "floor": the hops of a gateway request made with the gateway's own libraries and
 * nothing else, measured beside the api in the same run, so the results show how much of the
 * api's CPU per request is the libraries' own cost (and the machine's) and how much is the
 * gateway's work on top of them.
 *
 * Per `POST /v1/chat/completions`: Fastify with its default JSON body parser (no schema, hooks,
 * plugins nor logging), one `EVALSHA` through ioredis with the admission script's shape (7 keys,
 * 9 arguments, a small array back; auto-pipelined, the library's own batching, where the api puts
 * the admissions of one turn of the event loop in one script call), one request to the upstream
 * through an undici `Agent` (keep-alive), the answer parsed and serialized again; the Redis
 * connection and the Agent are made by the api's own factories (`createRedis`, `createUpstreamAgent`
 * with the default `UPSTREAM_*` settings), so their options and timers are the api's. No key check,
 * validation, billing, settlement, metrics nor error handling: those are what the api adds. A
 * streamed request (`"stream": true`) gets the upstream's bytes piped through as they arrive: the
 * floor of a stream, where the api parses, translates and re-serializes every event.
 *
 * Usage: node bench/floor-proxy.ts --port N --upstream http://127.0.0.1:M --redis redis://...
 * Prints `floor-proxy listening on <url>` once ready.
 */
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { UPSTREAM_DEFAULTS } from '../shared/src/config/config.ts';
import { createRedis } from '../shared/src/redis/redis.ts';
import { createUpstreamAgent } from '../shared/src/upstream/upstream-client.ts';

const { values } = parseArgs({
  options: { port: { type: 'string' }, upstream: { type: 'string' }, redis: { type: 'string' } },
});
if (!values.port || !values.upstream || !values.redis) {
  console.error('usage: node bench/floor-proxy.ts --port N --upstream URL --redis URL');
  process.exit(2);
}

/** One hash field counted per request: a Redis round trip that reads and writes, like an admission. */
const FLOOR_LUA = `
local n = redis.call('HINCRBY', KEYS[1], 'requests', 1)
return {1, n, ARGV[1]}
`;
const KEYS = [
  'floor:rate',
  'floor:wallet',
  'floor:spend',
  'floor:wh:e',
  'floor:wh:a',
  'floor:kh:e',
  'floor:kh:a',
];

type FloorCommand = (...args: string[]) => Promise<unknown>;
const redis = createRedis(values.redis, { connectionName: 'floor-proxy' });
// Batched writes through ioredis's own auto-pipelining (read at each command): the api too sends
// the admissions of one turn of the event loop together, in one script call of its own making.
redis.options.enableAutoPipelining = true;
redis.defineCommand('floorAdmit', { numberOfKeys: KEYS.length, lua: FLOOR_LUA });
const floorAdmit = (redis as unknown as Record<string, FloorCommand>).floorAdmit?.bind(redis) as FloorCommand;

const upstream = new URL('/v1/chat/completions', values.upstream);
const agent = createUpstreamAgent(UPSTREAM_DEFAULTS);

const app = Fastify({ logger: false });
app.post('/v1/chat/completions', async (request, reply) => {
  const body = request.body as { model?: unknown; stream?: unknown };
  await floorAdmit(...KEYS, '3000', '60000', request.id, '1000', '60000', '0', '', '1', '1');
  const answer = await agent.request({
    origin: upstream.origin,
    path: upstream.pathname,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-anything' },
    body: JSON.stringify(body),
  });
  // A stream: the upstream's bytes relayed as they come (undici's body piped into the answer),
  // with no event parsed, translated nor checked, where the api translates every event.
  if (body.stream === true) {
    reply.code(answer.statusCode).header('content-type', 'text/event-stream; charset=utf-8');
    return answer.body;
  }
  const parsed: unknown = JSON.parse(await answer.body.text());
  reply.code(answer.statusCode).header('content-type', 'application/json; charset=utf-8');
  return JSON.stringify(parsed);
});

// Before it says it listens: whoever stops it once it has said so gets a clean stop.
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    void app
      .close()
      .then(() => redis.quit())
      .finally(() => process.exit(0));
  });
const address = await app.listen({ host: '127.0.0.1', port: Number(values.port) });
console.log(`floor-proxy listening on ${address}`);
