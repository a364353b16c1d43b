import type { Redis } from 'ioredis';
import type { Db, MongoClient } from 'mongodb';
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
import { connectMongo, ensureIndexes } from '../../../../shared/src/mongo/mongo.ts';
import { createRedis } from '../../../../shared/src/redis/redis.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import { lateBound, made } from '../../../helpers/late-bound.ts';
import { testConfig, uniqueSuffix } from '../../../helpers/test-config.ts';

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

/** Billing on the test stores: its own database, its own Redis key prefix. */
export interface BillingFixture {
  readonly billing: Billing;
  /** The same stores and settings, for driving internal steps (a simulated crash). */
  readonly deps: BillingDeps;
  readonly config: Config;
  readonly db: Db;
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
  const mongo: { client: MongoClient; db: Db } = await connectMongo(config.mongo);
  await ensureIndexes(mongo.db);
  const redises = [createRedis(config.redis.url)];
  const redis = redises[0] as Redis;
  const clock = options.clock ?? testClock();
  const keyPrefix = `test-billing-${uniqueSuffix()}:`;
  const { logger } = captureLogger('warn');
  const billingOptions: BillingOptions = {
    db: mongo.db,
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
    db: mongo.db,
    redis,
    clock,
    keyPrefix,
    replica() {
      const other = createRedis(config.redis.url);
      redises.push(other);
      return createBilling({ ...billingOptions, redis: other });
    },
    async close() {
      await billing.close();
      await Promise.allSettled([mongo.client.close(), ...redises.map((r) => r.quit())]);
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
  let created: BillingFixture | undefined;
  const current = () => made(created, 'the billing fixture');
  beforeAll(async () => {
    created = await billingFixture(options);
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
