import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Config } from '../config/config.ts';
import type { SealedSecret } from './channel.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A stored credential no configured key can open (the message says why, never the credential). */
export class ChannelSecretUnreadable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChannelSecretUnreadable';
  }
}

/** `CHANNEL_SECRET_KEY` is not set: a channel's credential cannot be sealed. */
export class ChannelSecretKeyMissing extends Error {
  constructor() {
    super('CHANNEL_SECRET_KEY is not set: channels cannot be created (openssl rand -base64 32)');
    this.name = 'ChannelSecretKeyMissing';
  }
}

/** A key's id: the first 8 hex digits of its SHA-256, stored beside each sealed credential. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * The channel secret keys of a process: the current one seals and opens, the previous one
 * (during a rotation) only opens. AES-256-GCM with a random 96-bit IV per seal; the tag
 * authenticates the credential and its key id.
 */
export class ChannelSecrets {
  readonly #keys = new Map<string, Buffer>();
  readonly #current: { id: string; key: Buffer } | undefined;

  constructor(current: Buffer | undefined, previous?: Buffer) {
    if (current !== undefined) {
      this.#current = { id: keyIdOf(current), key: current };
      this.#keys.set(this.#current.id, current);
    }
    if (previous !== undefined && !this.#keys.has(keyIdOf(previous)))
      this.#keys.set(keyIdOf(previous), previous);
  }

  /** The id of the key that seals now; undefined without `CHANNEL_SECRET_KEY`. */
  get currentKeyId(): string | undefined {
    return this.#current?.id;
  }

  seal(plain: string): SealedSecret {
    if (this.#current === undefined) throw new ChannelSecretKeyMissing();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv);
    cipher.setAAD(Buffer.from(this.#current.id));
    const sealed = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return { keyId: this.#current.id, sealed: sealed.toString('base64') };
  }

  open(secret: SealedSecret): string {
    const key = this.#keys.get(secret.keyId);
    if (key === undefined) {
      throw new ChannelSecretUnreadable(
        `it is sealed with key ${secret.keyId}, which is neither CHANNEL_SECRET_KEY nor CHANNEL_SECRET_KEY_PREVIOUS`,
      );
    }
    const bytes = Buffer.from(secret.sealed, 'base64');
    if (bytes.length < IV_BYTES + TAG_BYTES)
      throw new ChannelSecretUnreadable('its sealed credential is truncated');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(secret.keyId));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new ChannelSecretUnreadable(
        `its sealed credential does not authenticate under key ${secret.keyId}`,
      );
    }
  }
}

/** The process's channel secret keys, from `CHANNEL_SECRET_KEY` and `CHANNEL_SECRET_KEY_PREVIOUS`. */
export function channelSecretsOf(config: Pick<Config, 'channelSecrets'>): ChannelSecrets {
  const decode = (text: string | undefined) => (text === undefined ? undefined : Buffer.from(text, 'base64'));
  return new ChannelSecrets(decode(config.channelSecrets.current), decode(config.channelSecrets.previous));
}

/** How a process opens stored credentials (see `ChannelSecrets.open`). */
export function channelSecretOpener(
  config: Pick<Config, 'channelSecrets'>,
): (secret: SealedSecret) => string {
  const secrets = channelSecretsOf(config);
  return (secret) => secrets.open(secret);
}
