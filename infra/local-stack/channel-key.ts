import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The local stack's `CHANNEL_SECRET_KEY`: made once (32 random bytes, base64) and kept in
 * `<data dir>/channel-secret.key` (mode 0600), so the channels stored in the stack's SQLite file
 * open on every later start. A key given in the environment is used instead and nothing is written.
 */
export function localChannelKey(dataDir: string, env: Readonly<NodeJS.ProcessEnv>): string {
  const given = env.CHANNEL_SECRET_KEY?.trim();
  if (given !== undefined && given !== '') return given;
  const file = join(dataDir, 'channel-secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
