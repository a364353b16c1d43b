/**
 * The breaker per channel against a real Redis, as two replicas share it: consecutive failures
 * open it for the cooldown (a 429's Retry-After sets it), one probe across replicas once it has
 * passed, a success closes it, a failed probe doubles the cooldown (bounded), a per-model scope
 * stays apart, reset forgets a channel (and frees its probes), and while Redis is away each process
 * opens on its own. Also on a Cluster (`npm run test:redis-cluster`): every key under one tag.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { breakerKeys } from '../../../../shared/src/channels/breaker-scripts.ts';
import { ChannelBreaker, MAX_COOLDOWN_MS } from '../../../../shared/src/channels/channel-breaker.ts';
import { createRedis, isCluster, type Redis } from '../../../../shared/src/redis/redis.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import { testConfig, uniqueSuffix } from '../../../helpers/test-config.ts';

const opened: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

/** A connection to the stack's Redis: its one node, or its Cluster on `npm run test:redis-cluster`. */
function connection(): Redis {
  const redis = createRedis(testConfig().redis);
  opened.push({ close: () => redis.disconnect() });
  return redis;
}

/** A replica's breaker on the shared prefix, with a clock the test moves. */
async function replica(prefix: string, clock: { now: number }, threshold = 3, cooldownMs = 2_000) {
  const breaker = new ChannelBreaker(
    connection(),
    connection(),
    prefix,
    { failureThreshold: threshold, cooldownMs },
    captureLogger('silent').logger,
    () => clock.now,
  );
  await breaker.start();
  opened.push(breaker);
  return breaker;
}

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const failure = { reason: 'HTTP 503: down' };

describe('channel breaker', () => {
  it('opens on every replica at the threshold, lets one probe through after the cooldown, and closes on its success', async () => {
    const prefix = `breaker-${uniqueSuffix()}`;
    const clock = { now: Date.now() };
    const [a, b] = [await replica(prefix, clock), await replica(prefix, clock)];
    a.failed('ch_1', failure, false);
    b.failed('ch_1', failure, false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.view('ch_1')).toBe('closed');
    a.failed('ch_1', failure, false);
    await until(() => a.view('ch_1') === 'open' && b.view('ch_1') === 'open');
    expect(b.openState('ch_1')).toMatchObject({ cooldownMs: 2_000, reason: 'HTTP 503: down' });

    clock.now += 2_001;
    expect(a.view('ch_1')).toBe('half_open');
    // One probe across both replicas, however many requests ask.
    const takes = await Promise.all([a.takeProbe('ch_1'), b.takeProbe('ch_1'), a.takeProbe('ch_1')]);
    expect(takes.filter(Boolean)).toHaveLength(1);

    a.succeeded('ch_1');
    await until(() => a.view('ch_1') === 'closed' && b.view('ch_1') === 'closed');
    expect(await a.takeProbe('ch_1')).toBe(true); // no state left: a stray token is harmless
  });

  it('doubles the cooldown on a failed probe, bounded at ten minutes', async () => {
    const prefix = `breaker-${uniqueSuffix()}`;
    const clock = { now: Date.now() };
    const a = await replica(prefix, clock, 1, 400_000);
    a.failed('ch_2', failure, false);
    await until(() => a.view('ch_2') === 'open');
    clock.now += 400_001;
    expect(await a.takeProbe('ch_2')).toBe(true);
    a.failed('ch_2', failure, true);
    await until(() => a.openState('ch_2')?.cooldownMs === MAX_COOLDOWN_MS);
    expect(a.view('ch_2')).toBe('open');
    // The probe token is freed: the next probe is possible once this cooldown passes.
    clock.now += MAX_COOLDOWN_MS + 1;
    expect(await a.takeProbe('ch_2')).toBe(true);
  });

  it('refuses a second probe once the first failed, before the replicas hear of it', async () => {
    const prefix = `breaker-${uniqueSuffix()}`;
    const clock = { now: Date.now() };
    const [a, b] = [await replica(prefix, clock, 1, 1_000), await replica(prefix, clock, 1, 1_000)];
    a.failed('ch_10', failure, false);
    await until(() => b.view('ch_10') === 'open');
    clock.now += 1_001;
    expect(await a.takeProbe('ch_10')).toBe(true);
    const untilBefore = b.openState('ch_10')?.untilMs;
    a.failed('ch_10', failure, true);
    // The probe's token is freed with the failure; the stored cooldown (now doubled) still refuses.
    const redis = connection();
    const keys = breakerKeys(prefix);
    const end = Date.now() + 2_000;
    while ((await redis.exists(keys.probe('ch_10'))) === 1 && Date.now() < end)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await redis.exists(keys.probe('ch_10'))).toBe(0);
    expect(await b.takeProbe('ch_10')).toBe(false);
    expect(await a.takeProbe('ch_10')).toBe(false);
    await until(() => (b.openState('ch_10')?.untilMs ?? 0) > (untilBefore ?? 0));
    expect(b.openState('ch_10')?.cooldownMs).toBe(2_000);
    clock.now += 2_001;
    expect(await b.takeProbe('ch_10')).toBe(true);
  });

  it("opens with an upstream 429's Retry-After as its cooldown", async () => {
    const prefix = `breaker-${uniqueSuffix()}`;
    const clock = { now: Date.now() };
    const a = await replica(prefix, clock, 1);
    a.failed('ch_3', { reason: 'HTTP 429', retryAfterMs: 90_000 }, false);
    await until(() => a.openState('ch_3')?.cooldownMs === 90_000);
    a.failed('ch_4', { reason: 'HTTP 429', retryAfterMs: 3_600_000 }, false);
    await until(() => a.openState('ch_4')?.cooldownMs === MAX_COOLDOWN_MS);
  });

  it('counts only consecutive failures within the window: a success in between starts again', async () => {
    const prefix = `breaker-${uniqueSuffix()}`;
    const clock = { now: Date.now() };
    const a = await replica(prefix, clock, 2);
    a.failed('ch_5', failure, false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.hasHistory('ch_5')).toBe(true);
    a.succeeded('ch_5');
    await new Promise((resolve) => setTimeout(resolve, 50));
    a.failed('ch_5', failure, false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.view('ch_5')).toBe('closed');
    clock.now += 31_000; // past the window: the one failure counted is forgotten
    a.failed('ch_5', failure, false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.view('ch_5')).toBe('closed');
    a.failed('ch_5', failure, false);
    await until(() => a.view('ch_5') === 'open');
  });

  it('keeps a per-model scope apart from its channel, and reset forgets both on every replica', async () => {
    const prefix = `breaker-${uniqueSuffix()}`;
    const clock = { now: Date.now() };
    const [a, b] = [await replica(prefix, clock, 1), await replica(prefix, clock, 1)];
    a.failed('ch_6|openai/gpt-x', failure, false);
    await until(() => b.view('ch_6|openai/gpt-x') === 'open');
    expect(b.view('ch_6')).toBe('closed');
    a.failed('ch_6', failure, false);
    await until(() => b.view('ch_6') === 'open');
    await a.reset('ch_6');
    await until(() => b.view('ch_6') === 'closed' && b.view('ch_6|openai/gpt-x') === 'closed');
    expect(b.anyOpen).toBe(false);
  });

  it("reset frees the scopes' probes in flight, and every breaker key shares the {channels} slot", async () => {
    const prefix = `breaker-${uniqueSuffix()}`;
    const clock = { now: Date.now() };
    const a = await replica(prefix, clock, 1, 60_000);
    const redis = connection();
    const keys = breakerKeys(prefix);
    a.failed('ch_9', failure, false);
    a.failed('ch_9|openai/gpt-x', failure, false);
    await until(() => a.view('ch_9') === 'open' && a.view('ch_9|openai/gpt-x') === 'open');
    clock.now += 60_001;
    expect(await a.takeProbe('ch_9')).toBe(true);
    expect(await a.takeProbe('ch_9|openai/gpt-x')).toBe(true);
    // The reset script deletes probe keys it builds from the prefix it is given (one slot).
    await a.reset('ch_9');
    expect(await redis.exists(keys.probe('ch_9'), keys.probe('ch_9|openai/gpt-x'))).toBe(0);
    expect(await a.takeProbe('ch_9')).toBe(true);
    if (isCluster(redis)) {
      const names = [
        keys.failures,
        keys.open,
        keys.envDisabled,
        keys.events,
        keys.probe('ch_9|openai/gpt-x'),
        `${prefix}:{channels}:figures:ch_9`,
        `${prefix}:{channels}:changed`,
      ];
      const slots = await Promise.all(names.map((key) => redis.call('CLUSTER', 'KEYSLOT', key)));
      expect(new Set(slots).size).toBe(1);
    }
  });

  it('catches up on a missed message by reading the state again', async () => {
    const prefix = `breaker-${uniqueSuffix()}`;
    const clock = { now: Date.now() };
    const a = await replica(prefix, clock, 1);
    const b = await replica(prefix, clock, 1);
    a.failed('ch_7', failure, false);
    await until(() => a.view('ch_7') === 'open');
    // A replica that started after the message: the state is read at start.
    const late = await replica(prefix, clock, 1);
    expect(late.view('ch_7')).toBe('open');
    await b.reload();
    expect(b.view('ch_7')).toBe('open');
  });

  it('opens locally at the threshold while Redis is away, and takes the probe without it', async () => {
    const clock = { now: Date.now() };
    const dead = createRedis('redis://127.0.0.1:1');
    opened.push({ close: () => dead.disconnect() });
    const breaker = new ChannelBreaker(
      dead,
      connection(),
      `breaker-${uniqueSuffix()}`,
      { failureThreshold: 2, cooldownMs: 5_000 },
      captureLogger('silent').logger,
      () => clock.now,
    );
    breaker.failed('ch_8', failure, false);
    breaker.failed('ch_8', failure, false);
    await until(() => breaker.view('ch_8') === 'open', 8_000);
    clock.now += 5_001;
    expect(await breaker.takeProbe('ch_8')).toBe(true);
  }, 15_000);
});
