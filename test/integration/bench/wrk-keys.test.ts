/**
 * The bench's wrk script (bench/wrk-keys.lua) rotates the API keys of a keys file request by
 * request, in the header the target's `-H` gave, whatever its case. Setting the key in a second
 * spelling ("Authorization" beside wrk's "authorization") sends two Authorization headers; Node
 * keeps the first, so in the wrk processes whose Lua table happens to put the fixed one first
 * (the order changes from process to process) every request used one key and met its rate limit:
 * whole rounds of 429 from a gateway with a hundred keys to spare. Checked against a real HTTP
 * server that records each request's raw headers.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '../../../bench/wrk-keys.lua');
const KEYS = ['hk-first', 'hk-second', 'hk-third'];
const haveWrk = ['/usr/bin', ...(process.env.PATH ?? '').split(':')].some((dir) =>
  existsSync(join(dir, 'wrk')),
);

/** Per request: the Authorization headers it carried, as sent. */
const seen: string[][] = [];
let server: Server;
let url: string;
let keysFile: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const raw = request.rawHeaders;
    seen.push(
      raw.flatMap((name, i) => (i % 2 === 0 && /^authorization$/i.test(name) ? [raw[i + 1] ?? ''] : [])),
    );
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  keysFile = join(mkdtempSync(join(tmpdir(), 'wrk-keys-')), 'keys.txt');
  writeFileSync(keysFile, `${KEYS.join('\n')}\n`);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** wrk with the script for half a second, one connection, the first key given with `-H header`. */
async function run(header: string): Promise<string[][]> {
  seen.length = 0;
  await promisify(execFile)(
    'wrk',
    ['-t1', '-c1', '-d1s', '-s', SCRIPT, '-H', `${header}: Bearer ${KEYS[0]}`, url],
    {
      env: {
        ...process.env,
        WRK_KEYS_FILE: keysFile,
        WRK_JSON_OUT: join(tmpdir(), `wrk-keys-${process.pid}.json`),
      },
    },
  );
  return [...seen];
}

describe.skipIf(!haveWrk)('bench/wrk-keys.lua', () => {
  for (const header of ['authorization', 'Authorization', 'AUTHORIZATION']) {
    it(`sends one Authorization header per request and rotates the keys (-H "${header}: …")`, async () => {
      // Several wrk processes: the order of wrk's header table changes from one to the next.
      for (let process = 0; process < 3; process++) {
        const requests = await run(header);
        expect(requests.length).toBeGreaterThan(30);
        expect(requests.filter((headers) => headers.length !== 1)).toEqual([]);
        const counts = new Map<string, number>();
        for (const [value] of requests) counts.set(value ?? '', (counts.get(value ?? '') ?? 0) + 1);
        expect([...counts.keys()].sort()).toEqual(KEYS.map((key) => `Bearer ${key}`).sort());
        for (const count of counts.values()) expect(count).toBeGreaterThan(requests.length / 6);
      }
    });
  }
});
