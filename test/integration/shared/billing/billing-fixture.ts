import { spawn } from 'node:child_process';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import {
  type Billing,
  type BillingOptions,
  billingDeps,
  billingOver,
  createBilling,
} from '../../../../shared/src/billing/billing.ts';
import type { BillingDeps } from '../../../../shared/src/billing/billing-deps.ts';
import type { Config } from '../../../../shared/src/config/config.ts';
import { createRedis } from '../../../../shared/src/redis/redis.ts';
import { openStore } from '../../../../shared/src/store/open-store.ts';
import type { Store } from '../../../../shared/src/store/store.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import { lateBound, made } from '../../../helpers/late-bound.ts';
import {
  redisEnvironmentOf,
  testConfig,
  testEnvironment,
  uniqueSuffix,
} from '../../../helpers/test-config.ts';

/** A settable clock for tests that move time (leases, billing days). */
export interface TestClock {
  (): Date;
  set(at: Date | string): void;
  advance(ms: number): void;
}

export function testClock(start: Date | string = new Date()): TestClock {
  let now = new Date(start);
  const clock = (() => new Date(now)) as TestClock;
  clock.set = (at) => {
    now = new Date(at);
  };
  clock.advance = (ms) => {
    now = new Date(now.getTime() + ms);
  };
  return clock;
}

/** Billing on the test stores: its own store (the default SQLite file unless the env names MongoDB), its own Redis key prefix. */
export interface BillingFixture {
  readonly billing: Billing;
  /** The same stores and settings, for driving internal steps (a simulated crash). */
  readonly deps: BillingDeps;
  readonly config: Config;
  readonly store: Store;
  readonly redis: Redis;
  readonly clock: TestClock;
  readonly keyPrefix: string;
  /** Another billing instance on the same stores (a second replica). */
  replica(): Billing;
  close(): Promise<void>;
}

export interface FixtureOptions {
  readonly env?: Record<string, string | undefined>;
  readonly clock?: TestClock;
  readonly rateWindowMs?: number;
  /** When `billing`'s deferred settlements are written (see SettlementBatcher). */
  readonly settleBatch?: BillingOptions['settleBatch'];
}

export async function billingFixture(options: FixtureOptions = {}): Promise<BillingFixture> {
  const config = testConfig({ MIN_REQUIRED_BALANCE: '0', ...options.env });
  const clock = options.clock ?? testClock();
  const { logger } = captureLogger('warn');
  const store = await openStore(config.store, { logger, clock });
  const redises = [createRedis(config.redis)];
  const redis = redises[0] as Redis;
  const keyPrefix = `test-billing-${uniqueSuffix()}:`;
  const billingOptions: BillingOptions = {
    money: store.money,
    redis,
    config,
    logger,
    clock,
    keyPrefix,
    rateWindowMs: options.rateWindowMs,
    settleBatch: options.settleBatch,
  };
  const deps = billingDeps(billingOptions);
  const billing = billingOver(deps, billingOptions);
  return {
    billing,
    deps,
    config,
    store,
    redis,
    clock,
    keyPrefix,
    replica() {
      const other = createRedis(config.redis);
      redises.push(other);
      return createBilling({ ...billingOptions, redis: other });
    },
    async close() {
      await billing.close();
      await Promise.allSettled([store.close(), ...redises.map((r) => r.quit())]);
    },
  };
}

let counter = 0;
/** A fresh id for accounts, keys and requests within one test file. */
export function freshId(kind: string): string {
  counter += 1;
  return `${kind}_${uniqueSuffix()}${counter}`;
}

/**
 * The fixture of a test file: created before its tests, closed after them, and after every test
 * the deferred settlements are written and the ledger check must pass. Read through the returned
 * object, which stands for the fixture once `beforeAll` has made it.
 */
export function useBillingFixture(options: FixtureOptions = {}): BillingFixture {
  return useCheckedFixture(() => billingFixture(options), 'the billing fixture');
}

/** `useBillingFixture` over a fixture that `open` makes (one with more of the store's internals). */
export function useCheckedFixture<F extends BillingFixture>(open: () => Promise<F>, what: string): F {
  let created: F | undefined;
  const current = () => made(created, what);
  beforeAll(async () => {
    created = await open();
  });
  afterEach(async () => {
    await current().billing.flush();
    expect(await current().billing.checkLedger()).toEqual([]);
  });
  afterAll(async () => {
    await created?.close();
  });
  return lateBound(current);
}

/** The environment naming the fixture's own store (its SQLite file, or its MongoDB database). */
export function storeEnvironmentOf(config: Config): Record<string, string | undefined> {
  const { store } = config;
  if (store.kind === 'sqlite') return { MONGO_URL: undefined, SQLITE_PATH: store.path };
  return { MONGO_URL: store.url, MONGO_DB: store.database };
}

/** Runs `scripts/ledger-check.ts` as `npm run ledger:check` would, on this Node, against the fixture's store. */
export async function runLedgerCheckScript(
  fx: Pick<BillingFixture, 'config'>,
  args: string[] = [],
  { storeOnly = false }: { storeOnly?: boolean } = {},
): Promise<{ code: number | null; output: string }> {
  const store = { ...storeEnvironmentOf(fx.config), LOG_LEVEL: 'warn' };
  // `storeOnly`: the store's variables and nothing else (no Redis, no S3), as an operator may run it.
  const env = storeOnly ? store : testEnvironment({ ...store, ...redisEnvironmentOf(fx.config) });
  const child = spawn(process.execPath, ['scripts/ledger-check.ts', ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output };
}
