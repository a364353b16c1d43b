/**
 * The registry of one process over a real store and Redis: stored channels opened in memory and
 * environment ones beside them; a channel written later that this process cannot open is logged
 * and left out of its routing (the others keep routing); an environment refusal is kept in Redis.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewChannel } from '../../../../shared/src/channels/channel.ts';
import { ChannelRegistry } from '../../../../shared/src/channels/channel-registry.ts';
import { ChannelSecrets } from '../../../../shared/src/channels/channel-secrets.ts';
import { environmentChannels } from '../../../../shared/src/channels/environment-channels.ts';
import { loadConfig } from '../../../../shared/src/config/config.ts';
import { createRedis, type Redis } from '../../../../shared/src/redis/redis.ts';
import { openStore } from '../../../../shared/src/store/open-store.ts';
import type { Store } from '../../../../shared/src/store/store.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import { testEnvironment } from '../../../helpers/test-config.ts';

const config = loadConfig(testEnvironment({ OPENAI_API_KEY: 'sk-env-key-0001' }));
const secrets = new ChannelSecrets(randomBytes(32));
let store: Store;
let redis: Redis;
let subscriber: Redis;
let registry: ChannelRegistry;
const log = captureLogger('warn');

function channel(id: string, sealer: ChannelSecrets): NewChannel {
  return {
    id,
    provider: 'openai',
    name: id,
    baseUrl: null,
    secret: sealer.seal(`sk-${id}`),
    keyLast4: id.slice(-4),
    weight: 1,
    priority: 0,
    models: null,
    enabled: true,
  };
}

beforeAll(async () => {
  store = await openStore(config.store, { logger: log.logger });
  redis = createRedis(config.redis);
  subscriber = createRedis(config.redis);
  await store.channels.insert(channel('ch_readable', secrets), new Date());
  registry = new ChannelRegistry({
    repository: store.channels,
    openSecret: (secret) => secrets.open(secret),
    environment: environmentChannels(config),
    defaultBaseUrl: () => 'http://upstream.test/v1',
    redis,
    subscriber,
    prefix: config.queues.prefix,
    logger: log.logger,
  });
  await registry.start();
});
afterAll(async () => {
  await registry?.close();
  redis?.disconnect();
  subscriber?.disconnect();
  await store?.close();
});

describe('channel registry', () => {
  it('opens the stored channels and lists the environment ones beside them', () => {
    const { byId } = registry.snapshot;
    expect(byId.get('ch_readable')).toMatchObject({
      apiKey: 'sk-ch_readable',
      baseUrl: 'http://upstream.test/v1',
      source: 'api',
    });
    expect(byId.get('ch_env_openai')).toMatchObject({ apiKey: 'sk-env-key-0001', source: 'environment' });
  });

  it('leaves out, and logs, a channel written later that it cannot open, and keeps the others', async () => {
    await store.channels.insert(channel('ch_unreadable', new ChannelSecrets(randomBytes(32))), new Date());
    await registry.reload();
    expect(registry.snapshot.byId.has('ch_unreadable')).toBe(false);
    expect(registry.snapshot.byId.has('ch_readable')).toBe(true);
    const line = log.lines().find((l) => String(l.msg).includes('ch_unreadable'));
    expect(line?.msg).toContain('cannot be read');
    expect(JSON.stringify(log.lines())).not.toContain('sk-ch_unreadable');
  });

  it('keeps an environment channel’s refusal in Redis, for the next load', async () => {
    const env = registry.snapshot.byId.get('ch_env_openai');
    if (env === undefined) throw new Error('no environment channel');
    await registry.autoDisable(env, 'HTTP 401');
    await registry.reload();
    expect(registry.snapshot.byId.get('ch_env_openai')?.autoDisabledReason).toBe('HTTP 401');
    await registry.clearEnvironmentDisabled('ch_env_openai');
    await registry.reload();
    expect(registry.snapshot.byId.get('ch_env_openai')?.autoDisabledReason).toBeNull();
  });
});
