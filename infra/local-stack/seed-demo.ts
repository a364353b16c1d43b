import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiServices } from '../../api/src/services.ts';
import { ensureDemoAccount } from '../../api/src/use-cases/ensure-demo-account.ts';
import { irtToMicros } from '../../shared/src/billing/money.ts';
import { loadConfig } from '../../shared/src/config/config.ts';
import { createLogger } from '../../shared/src/logging/logger.ts';
import { closeConnections, openConnections } from '../../shared/src/runtime/connections.ts';

/** A demo account made for the person who started the stack: its API key and a first request. */
export interface DemoAccount {
  readonly key: string;
  /** A ready-to-paste curl command that uses the key. */
  readonly curl: string;
}

export interface SeedDemoContext {
  /** `http://host:port/v1` */
  readonly baseUrl: string;
  /** The environment the api and the worker run with (REDIS_URL, MONGO_URL, MONGO_DB, S3_*...). */
  readonly env: Readonly<NodeJS.ProcessEnv>;
}

const DEMO_EMAIL = 'demo@gateway.local';
const DEMO_CREDIT_IRT = '1000000';
/** Where the demo key is kept between runs (git-ignored), so a restart over kept data reuses it. */
const SAVED_KEY_FILE = fileURLToPath(new URL('../../.local/demo-key.json', import.meta.url));

/**
 * Called once the api is ready: makes (once) the demo account with a credit of 1,000,000 Toman and a
 * key, through the same use cases as the operator API, and returns what the banner prints.
 */
export async function seedDemoAccount(context: SeedDemoContext): Promise<DemoAccount | undefined> {
  const config = loadConfig(context.env);
  const logger = createLogger({ name: 'stack-seed', level: 'warn' });
  const connections = await openConnections(config, 'stack-seed');
  const services = await createApiServices(config, connections, logger);
  try {
    const { key } = await ensureDemoAccount(
      { ...services.accounts, billing: services.billing },
      { email: DEMO_EMAIL, creditMicros: irtToMicros(DEMO_CREDIT_IRT), savedKey: await readSavedKey() },
    );
    await saveKey(key);
    return { key, curl: `curl -s ${context.baseUrl}/balance -H 'Authorization: Bearer ${key}'` };
  } finally {
    await services.close();
    await closeConnections(connections);
  }
}

async function readSavedKey(): Promise<string | undefined> {
  try {
    const saved = JSON.parse(await readFile(SAVED_KEY_FILE, 'utf8')) as { key?: unknown };
    return typeof saved.key === 'string' ? saved.key : undefined;
  } catch {
    return undefined;
  }
}

async function saveKey(key: string): Promise<void> {
  await mkdir(dirname(SAVED_KEY_FILE), { recursive: true });
  await writeFile(SAVED_KEY_FILE, `${JSON.stringify({ key }, null, 2)}\n`, { mode: 0o600 });
}
