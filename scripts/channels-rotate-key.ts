import { channelSecretsOf } from '../shared/src/channels/channel-secrets.ts';
import { rotateChannelKeys } from '../shared/src/channels/rotate-channel-keys.ts';
import { loadChannelSecretsConfig, loadStoreToolConfig } from '../shared/src/config/config.ts';
import { createLogger } from '../shared/src/logging/logger.ts';
import { openStore } from '../shared/src/store/open-store.ts';

/**
 * `npm run channels:rotate-key`: on the configured store, seals every channel's credential again
 * under `CHANNEL_SECRET_KEY`, opening those sealed under `CHANNEL_SECRET_KEY_PREVIOUS`. Run it once
 * every process has the new key as `CHANNEL_SECRET_KEY` and the old one as the previous; then drop
 * the previous key (docs/channels.md, Rotation). Idempotent; exit 1 when a channel cannot be read.
 */
async function main(): Promise<number> {
  const config = loadStoreToolConfig(process.env);
  const secrets = channelSecretsOf(loadChannelSecretsConfig(process.env));
  const logger = createLogger({
    name: 'channels-rotate-key',
    level: config.logLevel,
    destination: process.stderr,
  });
  const store = await openStore(config.store, { logger });
  try {
    const report = await rotateChannelKeys(store.channels, secrets);
    for (const line of report.unreadable) console.log(`unreadable ${line}`);
    console.log(
      `channels rotated to key ${secrets.currentKeyId}: ${report.rotated} re-sealed, ${report.current} already current, ${report.unreadable.length} unreadable`,
    );
    return report.unreadable.length === 0 ? 0 : 1;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`channel key rotation failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
