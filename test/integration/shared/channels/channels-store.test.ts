/**
 * The channel store contract on both stores (a fresh SQLite file; a fresh MongoDB database): writes
 * and reads, unique names on insert and edit, the change counter, no credential in plain text
 * anywhere in the SQLite file or the raw MongoDB documents, and the key rotation over the store.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewChannel } from '../../../../shared/src/channels/channel.ts';
import { ChannelSecrets } from '../../../../shared/src/channels/channel-secrets.ts';
import { ChannelNameTaken } from '../../../../shared/src/channels/channels.repository.ts';
import { rotateChannelKeys } from '../../../../shared/src/channels/rotate-channel-keys.ts';
import { loadConfig } from '../../../../shared/src/config/config.ts';
import { openStore } from '../../../../shared/src/store/open-store.ts';
import type { Store } from '../../../../shared/src/store/store.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import {
  mongoStoreEnvironment,
  testEnvironment,
  testStoreEnvironment,
} from '../../../helpers/test-config.ts';

const PLAIN = 'sk-plaintext-credential-9f2c41';
const oldKey = randomBytes(32);
const newKey = randomBytes(32);

function channel(id: string, secrets: ChannelSecrets, fields: Partial<NewChannel> = {}): NewChannel {
  return {
    id,
    provider: 'openai',
    name: id,
    baseUrl: 'http://upstream.test/v1',
    secret: secrets.seal(`${PLAIN}-${id}`),
    keyLast4: 'c41x',
    weight: 2,
    priority: -1,
    models: ['openai/gpt-4o'],
    enabled: true,
    ...fields,
  };
}

describe.each(['sqlite', 'mongodb'] as const)('channel store (%s)', (kind) => {
  let store: Store;
  let env: Record<string, string | undefined>;
  const secrets = new ChannelSecrets(oldKey);
  const now = new Date('2026-12-01T10:00:00Z');

  beforeAll(async () => {
    env = testEnvironment(kind === 'sqlite' ? testStoreEnvironment() : mongoStoreEnvironment());
    store = await openStore(loadConfig(env).store, { logger: captureLogger('silent').logger });
  });
  afterAll(async () => {
    await store?.close();
  });

  it('inserts, finds, lists oldest first, edits and deletes, moving the change counter each time', async () => {
    const start = await store.channels.changeCounter();
    const a = await store.channels.insert(channel('ch_a', secrets), now);
    expect(a).toMatchObject({
      id: 'ch_a',
      weight: 2,
      priority: -1,
      models: ['openai/gpt-4o'],
      enabled: true,
    });
    expect(a.autoDisabledReason).toBeNull();
    await store.channels.insert(
      channel('ch_b', secrets, { baseUrl: null, models: null }),
      new Date(now.getTime() + 1),
    );
    expect((await store.channels.list()).map((c) => c.id)).toEqual(['ch_a', 'ch_b']);
    expect(await store.channels.findById('ch_b')).toMatchObject({ baseUrl: null, models: null });
    expect(await store.channels.findById('ch_none')).toBeNull();

    const later = new Date(now.getTime() + 60_000);
    const edited = await store.channels.update(
      'ch_a',
      { weight: 9, enabled: false, autoDisabledReason: 'HTTP 401', models: null },
      later,
    );
    expect(edited).toMatchObject({ weight: 9, enabled: false, autoDisabledReason: 'HTTP 401', models: null });
    expect(edited?.updatedAt.getTime()).toBe(later.getTime());
    expect(edited?.name).toBe('ch_a');
    expect(await store.channels.update('ch_none', { weight: 1 }, later)).toBeNull();
    expect(secrets.open((await store.channels.findById('ch_a'))?.secret ?? a.secret)).toBe(`${PLAIN}-ch_a`);

    expect(await store.channels.delete('ch_b')).toBe(true);
    expect(await store.channels.delete('ch_b')).toBe(false);
    expect(await store.channels.changeCounter()).toBe(start + 4);
  });

  it('refuses a taken name on insert and on edit', async () => {
    await store.channels.insert(channel('ch_c', secrets, { name: 'taken' }), now);
    await expect(
      store.channels.insert(channel('ch_d', secrets, { name: 'taken' }), now),
    ).rejects.toBeInstanceOf(ChannelNameTaken);
    await store.channels.insert(channel('ch_e', secrets, { name: 'free' }), now);
    await expect(store.channels.update('ch_e', { name: 'taken' }, now)).rejects.toBeInstanceOf(
      ChannelNameTaken,
    );
  });

  it('holds no credential in plain text', async () => {
    if (kind === 'sqlite') {
      await store.close();
      const file = loadConfig(env).store;
      const bytes = Buffer.concat(
        ['', '-wal'].map((suffix) => {
          try {
            return readFileSync(`${(file as { path: string }).path}${suffix}`);
          } catch {
            return Buffer.alloc(0);
          }
        }),
      );
      expect(bytes.includes(Buffer.from('sk-plaintext-credential'))).toBe(false);
      expect(bytes.includes(Buffer.from('ch_a'))).toBe(true);
      store = await openStore(loadConfig(env).store, { logger: captureLogger('silent').logger });
      return;
    }
    const client = await MongoClient.connect(String(env.MONGO_URL));
    try {
      const docs = await client.db(String(env.MONGO_DB)).collection('channels').find().toArray();
      expect(docs.length).toBeGreaterThan(0);
      expect(JSON.stringify(docs)).not.toContain('sk-plaintext-credential');
    } finally {
      await client.close();
    }
  });

  it('rotates every credential to the current key, once, naming the ones no key opens', async () => {
    const stranger = new ChannelSecrets(randomBytes(32));
    await store.channels.insert(channel('ch_lost', stranger, { name: 'lost' }), now);
    const rotating = new ChannelSecrets(newKey, oldKey);
    const report = await rotateChannelKeys(store.channels, rotating);
    expect(report.rotated).toBeGreaterThanOrEqual(3);
    expect(report.unreadable).toHaveLength(1);
    expect(report.unreadable[0]).toContain('lost (ch_lost)');
    const after = new ChannelSecrets(newKey);
    for (const c of await store.channels.list()) {
      if (c.id === 'ch_lost') continue;
      expect(c.secret.keyId).toBe(after.currentKeyId);
      expect(after.open(c.secret)).toBe(`${PLAIN}-${c.id}`);
    }
    const again = await rotateChannelKeys(store.channels, rotating);
    expect(again.rotated).toBe(0);
    expect(again.current).toBe(report.rotated + report.current);
  });
});
