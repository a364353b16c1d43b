import type { ChannelSecrets } from './channel-secrets.ts';
import type { ChannelsRepository } from './channels.repository.ts';

/** What a rotation did. */
export interface RotationReport {
  /** Channels sealed again under the current key. */
  readonly rotated: number;
  /** Channels already under the current key (a second run rotates nothing). */
  readonly current: number;
  /** Channels no configured key opens: named, left as they are. */
  readonly unreadable: readonly string[];
}

/**
 * Seals every stored channel's credential again under the current `CHANNEL_SECRET_KEY`, opening it
 * with whichever configured key sealed it (`CHANNEL_SECRET_KEY_PREVIOUS` during a rotation). Each
 * channel is one write; the store's change counter moves, so running processes reload them.
 */
export async function rotateChannelKeys(
  repository: Pick<ChannelsRepository, 'list' | 'update'>,
  secrets: ChannelSecrets,
  now: () => Date = () => new Date(),
): Promise<RotationReport> {
  const currentKeyId = secrets.currentKeyId;
  if (currentKeyId === undefined)
    throw new Error('CHANNEL_SECRET_KEY is not set: there is no key to rotate to');
  let rotated = 0;
  let current = 0;
  const unreadable: string[] = [];
  for (const channel of await repository.list()) {
    if (channel.secret.keyId === currentKeyId) {
      current += 1;
      continue;
    }
    let plain: string;
    try {
      plain = secrets.open(channel.secret);
    } catch (err) {
      unreadable.push(`${channel.name} (${channel.id}): ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    await repository.update(channel.id, { secret: secrets.seal(plain) }, now());
    rotated += 1;
  }
  return { rotated, current, unreadable };
}
