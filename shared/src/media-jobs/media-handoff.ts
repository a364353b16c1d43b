import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Config, MediaConfig } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';

/** How long a copy waits for the api to take it; the api takes it moments after the job completes. */
export const HANDOFF_TTL_MS = 60_000;

/**
 * Short-lived copies in Redis of the small media a worker has just produced (images), so the api
 * waiting for the job answers without reading the media back from S3: one Redis round trip instead
 * of one to the S3 server on every synchronous request. S3 stays the durable copy, written by the
 * worker as before; the copy is an optimisation and never required: one that was not made (over
 * `maxBytes`, Redis trouble), expired, or was taken already is read from S3 instead.
 *
 * Each copy lives under a fresh random name that the job's result records, so a copy left by an
 * earlier attempt of the same job can never be taken for a later attempt's media.
 */
export interface MediaHandoff {
  /** Stores a copy; resolves to its name, or null when none was made. Never rejects. */
  offer(bytes: Uint8Array): Promise<string | null>;
  /** Takes (reads and deletes) a copy; null when it is not there. Never rejects. */
  take(name: string): Promise<Buffer | null>;
  /** The copy named `name` when there is one (taken), else what `read` reads (the stored object). */
  takeOr(name: string | undefined, read: () => Promise<Uint8Array>): Promise<Uint8Array>;
  /** Deletes copies nobody will take (a discarded job). Never rejects. */
  drop(names: readonly string[]): Promise<void>;
}

export interface MediaHandoffOptions {
  /** Namespace of the Redis keys (the queue prefix). */
  readonly prefix: string;
  /** Largest copy made, in bytes; 0 makes none. */
  readonly maxBytes: number;
  readonly logger: Logger;
  readonly ttlMs?: number;
}

/** The handoff of a process, as configured (`MEDIA_HANDOFF_MAX_BYTES`, under the queue prefix). */
export function configuredMediaHandoff(
  redis: Redis,
  config: {
    readonly queues: Pick<Config['queues'], 'prefix'>;
    readonly media: Pick<MediaConfig, 'handoffMaxBytes'>;
  },
  logger: Logger,
): MediaHandoff {
  return createMediaHandoff(redis, {
    prefix: config.queues.prefix,
    maxBytes: config.media.handoffMaxBytes,
    logger,
  });
}

export function createMediaHandoff(redis: Redis, options: MediaHandoffOptions): MediaHandoff {
  const { prefix, maxBytes, logger } = options;
  const ttlMs = options.ttlMs ?? HANDOFF_TTL_MS;
  const keyOf = (name: string) => `${prefix}:media-handoff:${name}`;
  const take = async (name: string): Promise<Buffer | null> => {
    try {
      return await redis.getdelBuffer(keyOf(name));
    } catch (err) {
      logger.warn({ err }, 'media handoff: copy not taken; reading S3 instead');
      return null;
    }
  };
  return {
    async offer(bytes) {
      if (bytes.byteLength === 0 || bytes.byteLength > maxBytes) return null;
      const name = randomBytes(16).toString('base64url');
      try {
        await redis.set(
          keyOf(name),
          Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
          'PX',
          ttlMs,
        );
        return name;
      } catch (err) {
        logger.warn({ err }, 'media handoff: no Redis copy made; the api reads S3');
        return null;
      }
    },
    take,
    async takeOr(name, read) {
      return (name === undefined ? null : await take(name)) ?? read();
    },
    async drop(names) {
      if (names.length === 0) return;
      try {
        // One key per command: the copies of several jobs may live on different Cluster slots.
        await Promise.all(names.map((name) => redis.del(keyOf(name))));
      } catch (err) {
        logger.warn({ err }, 'media handoff: copies left to expire');
      }
    },
  };
}
