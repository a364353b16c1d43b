import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type OwnedProcess, type ServiceSpawnOptions, spawnUntilReady } from './child-process.ts';

export interface LocalMongo {
  /** Connection string without a database name. */
  readonly url: string;
  readonly process: OwnedProcess;
}

const BINARY_PACKAGE = '@jongodb/memory-server-bin-linux-x64-gnu';

/** Path of the jongodb native binary shipped in its npm package. */
export function jongodbBinaryPath(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve(`${BINARY_PACKAGE}/package.json`);
  const manifest = require(manifestPath) as { jongodb?: { binary?: string } };
  return join(dirname(manifestPath), manifest.jongodb?.binary ?? 'bin/jongodb');
}

/** Starts jongodb (a MongoDB-wire server, memory only) on a free port chosen by itself. */
export async function startJongodb(options: ServiceSpawnOptions = {}): Promise<LocalMongo> {
  const { process, match } = await spawnUntilReady(
    'jongodb',
    jongodbBinaryPath(),
    ['--host=127.0.0.1', '--port=0'],
    /JONGODB_URI=(mongodb:\/\/[^/\s]+)/,
    undefined,
    options,
  );
  return { url: match[1] ?? '', process };
}
