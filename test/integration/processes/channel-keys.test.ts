/**
 * A process that cannot open a stored channel's credential stops at start, with one message naming
 * the channel and the cause; given the sealing key as CHANNEL_SECRET_KEY_PREVIOUS (a rotation) it
 * starts. The api and the worker alike.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { ChannelSecrets } from '../../../shared/src/channels/channel-secrets.ts';
import { loadConfig } from '../../../shared/src/config/config.ts';
import { openStore } from '../../../shared/src/store/open-store.ts';
import { captureLogger } from '../../helpers/capture-logger.ts';
import { type SpawnedEntry, spawnEntry } from '../../helpers/spawn-entry.ts';
import { testEnvironment } from '../../helpers/test-config.ts';

const running: SpawnedEntry[] = [];
afterEach(() => {
  for (const spawned of running.splice(0)) spawned.child.kill('SIGKILL');
});

/** An environment whose store holds one channel sealed under a key of its own (returned in base64). */
async function storeWithSealedChannel(): Promise<{
  env: Record<string, string | undefined>;
  oldKey: string;
}> {
  const env = testEnvironment();
  const oldKey = randomBytes(32);
  const store = await openStore(loadConfig(env).store, { logger: captureLogger('silent').logger });
  try {
    await store.channels.insert(
      {
        id: 'ch_sealed_elsewhere',
        provider: 'openai',
        name: 'sealed-elsewhere',
        baseUrl: null,
        secret: new ChannelSecrets(oldKey).seal('sk-sealed-with-the-old-key'),
        keyLast4: '-key',
        weight: 1,
        priority: 0,
        models: null,
        enabled: true,
      },
      new Date(),
    );
  } finally {
    await store.close();
  }
  return { env, oldKey: oldKey.toString('base64') };
}

describe('a stored channel the process cannot read', () => {
  for (const [label, entry] of [
    ['api', 'api/src/main.ts'],
    ['worker', 'workers/src/main.ts'],
  ] as const) {
    it(`stops the ${label} at start naming the channel, and starts with the old key as the previous one`, async () => {
      const { env, oldKey } = await storeWithSealedChannel();
      const port = String(await freePort());
      const refused = spawnEntry(entry, { ...env, PORT: port, WORKER_QUEUES: 'image' });
      running.push(refused);
      expect((await refused.exited()).code).toBe(1);
      const output = refused.output();
      expect(output).toContain('channel "sealed-elsewhere" (ch_sealed_elsewhere) cannot be read');
      expect(output).toContain('neither CHANNEL_SECRET_KEY nor CHANNEL_SECRET_KEY_PREVIOUS');
      expect(output).not.toContain('sk-sealed-with-the-old-key');

      const started = spawnEntry(entry, {
        ...env,
        PORT: port,
        WORKER_QUEUES: 'image',
        LOG_LEVEL: 'info',
        CHANNEL_SECRET_KEY_PREVIOUS: oldKey,
      });
      running.push(started);
      await started.waitFor(label === 'api' ? /"msg":"api listening"/ : /"msg":"worker ready"/, 40_000);
    }, 60_000);
  }
});
