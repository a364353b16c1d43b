import { describe, expect, it } from 'vitest';
import { readRedisWork } from '../../../bench/redis-work.ts';
import { freePort } from '../../../infra/local-services/free-port.ts';

describe('readRedisWork', () => {
  it('answers null when no Redis listens (the report then shows n/a)', async () => {
    expect(await readRedisWork(`redis://127.0.0.1:${await freePort()}`)).toBeNull();
  });
});
