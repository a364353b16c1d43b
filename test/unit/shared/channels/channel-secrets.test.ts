/** Sealing channel credentials: AES-256-GCM round trips, key ids, the previous key, and refusals. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ChannelSecretKeyMissing,
  ChannelSecrets,
  ChannelSecretUnreadable,
  keyIdOf,
} from '../../../../shared/src/channels/channel-secrets.ts';
import { ConfigError, loadConfig } from '../../../../shared/src/config/config.ts';

const base = { REDIS_URL: 'redis://127.0.0.1:1', MONGO_URL: 'mongodb://127.0.0.1:1' };

describe('channel secrets', () => {
  it('seals with a fresh IV under the current key id and opens it again', () => {
    const key = randomBytes(32);
    const secrets = new ChannelSecrets(key);
    const [a, b] = [secrets.seal('sk-live-secret'), secrets.seal('sk-live-secret')];
    expect(a.keyId).toBe(keyIdOf(key));
    expect(a.sealed).not.toBe(b.sealed);
    expect(a.sealed).not.toContain('sk-live');
    expect(secrets.open(a)).toBe('sk-live-secret');
  });

  it('opens with the previous key during a rotation, and refuses an unknown key or a tampered text', () => {
    const [old, next] = [randomBytes(32), randomBytes(32)];
    const sealed = new ChannelSecrets(old).seal('sk-old');
    expect(new ChannelSecrets(next, old).open(sealed)).toBe('sk-old');
    expect(() => new ChannelSecrets(next).open(sealed)).toThrow(ChannelSecretUnreadable);
    expect(() => new ChannelSecrets(next).open(sealed)).toThrow(/neither CHANNEL_SECRET_KEY nor/);
    const bytes = Buffer.from(sealed.sealed, 'base64');
    bytes[14] = (bytes[14] ?? 0) ^ 1;
    expect(() => new ChannelSecrets(old).open({ ...sealed, sealed: bytes.toString('base64') })).toThrow(
      /does not authenticate/,
    );
    expect(() => new ChannelSecrets(old).open({ ...sealed, sealed: 'AAAA' })).toThrow(/truncated/);
    // The key id is authenticated too: a text moved under another id does not open.
    expect(() => new ChannelSecrets(old, next).open({ ...sealed, keyId: keyIdOf(next) })).toThrow(
      ChannelSecretUnreadable,
    );
  });

  it('refuses to seal without CHANNEL_SECRET_KEY', () => {
    expect(() => new ChannelSecrets(undefined).seal('x')).toThrow(ChannelSecretKeyMissing);
  });

  it('takes 32-byte base64 keys only, naming the setting', () => {
    const good = randomBytes(32).toString('base64');
    expect(loadConfig({ ...base, CHANNEL_SECRET_KEY: good }).channelSecrets.current).toBe(good);
    for (const bad of [
      randomBytes(16).toString('base64'),
      'not base64!',
      randomBytes(33).toString('base64'),
    ]) {
      expect(() => loadConfig({ ...base, CHANNEL_SECRET_KEY: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, CHANNEL_SECRET_KEY_PREVIOUS: bad })).toThrow(
        /CHANNEL_SECRET_KEY_PREVIOUS/,
      );
    }
  });
});
