import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createApiServices } from '../../api/src/services.ts';
import { createInvitation } from '../../api/src/use-cases/create-invitation.ts';
import { ensureDemoAccount } from '../../api/src/use-cases/ensure-demo-account.ts';
import { irtToMicros } from '../../shared/src/billing/money.ts';
import { loadConfig } from '../../shared/src/config/config.ts';
import { createLogger } from '../../shared/src/logging/logger.ts';
import { closeConnections, openConnections } from '../../shared/src/runtime/connections.ts';

/** A demo account made for the person who started the stack: its API key and a first request. */
export interface DemoAccount {
  readonly email: string;
  readonly key: string;
  /** A ready-to-paste curl command that uses the key. */
  readonly curl: string;
  /**
   * A one-time link into the web console, new on every start (links work once): an invitation
   * that sets the account's password, or, once it has one, a reset link.
   */
  readonly consoleLink: { readonly url: string; readonly purpose: 'invite' | 'reset' };
}

export interface SeedDemoContext {
  /** `http://host:port/v1` */
  readonly baseUrl: string;
  /** The environment the api and the worker run with (REDIS_URL, SQLITE_PATH or MONGO_URL, S3_*...). */
  readonly env: Readonly<NodeJS.ProcessEnv>;
  /** Where the demo key is kept between runs, so a restart over kept data reuses it. */
  readonly savedKeyFile: string;
}

const DEMO_EMAIL = 'demo@gateway.local';
const DEMO_CREDIT_IRT = '1000000';

/**
 * Called once the api is ready: makes (once) the demo account with a credit of 1,000,000 Toman and a
 * key, through the same use cases as the operator API, and a fresh one-time console link for it;
 * returns what the banner prints.
 */
export async function seedDemoAccount(context: SeedDemoContext): Promise<DemoAccount | undefined> {
  const config = loadConfig(context.env);
  const logger = createLogger({ name: 'stack-seed', level: 'warn' });
  const connections = await openConnections(config, 'stack-seed', logger);
  const services = await createApiServices(config, connections, logger);
  try {
    const { key, accountId } = await ensureDemoAccount(
      { ...services.accounts, billing: services.billing },
      {
        email: DEMO_EMAIL,
        creditMicros: irtToMicros(DEMO_CREDIT_IRT),
        savedKey: await readSavedKey(context.savedKeyFile),
      },
    );
    await saveKey(context.savedKeyFile, key);
    const hasPassword = (await services.console.credentials.passwordOf(accountId)) !== null;
    const link = await createInvitation(
      { ...services.accounts, credentials: services.console.credentials },
      {
        accountId,
        purpose: hasPassword ? 'reset' : 'invite',
        origin: config.publicBaseUrl ?? context.baseUrl.replace(/\/v1$/, ''),
      },
    );
    return {
      email: DEMO_EMAIL,
      key,
      curl: `curl -s ${context.baseUrl}/balance -H 'Authorization: Bearer ${key}'`,
      consoleLink: { url: link.url, purpose: link.purpose },
    };
  } finally {
    await services.close();
    await closeConnections(connections);
  }
}

async function readSavedKey(file: string): Promise<string | undefined> {
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as { key?: unknown };
    return typeof saved.key === 'string' ? saved.key : undefined;
  } catch {
    return undefined;
  }
}

async function saveKey(file: string, key: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify({ key }, null, 2)}\n`, { mode: 0o600 });
}
