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

/**
 * Extension point called once the api is ready: creates a demo account and returns its key, which
 * the stack prints. Returns undefined when there is nothing to show.
 *
 * TODO(issue 3): create the demo account (owner, credit, API key) and return `{ key, curl }`.
 */
export async function seedDemoAccount(_context: SeedDemoContext): Promise<DemoAccount | undefined> {
  return undefined;
}
