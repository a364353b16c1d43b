import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../../../shared/src/catalogue/live/build-snapshot.ts';
import { createCatalogueAdmin } from '../../../../shared/src/catalogue/live/catalogue-admin.ts';
import {
  createLiveCatalogue,
  type LiveCatalogue,
} from '../../../../shared/src/catalogue/live/live-catalogue.ts';
import { loadCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';
import { createSqliteCatalogueOverridesRepository } from '../../../../shared/src/store/sqlite/catalogue-overrides.sqlite.ts';
import { openSqlite } from '../../../../shared/src/store/sqlite/database.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';

const base = loadCatalogue();
const availability = { isRouteConfigured: () => true, simulateProviders: false };
let folder: string;
const dbs: DatabaseSync[] = [];
const lives: LiveCatalogue[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'live-catalogue-'));
});
afterAll(async () => {
  for (const live of lives) await live.close();
  for (const db of dbs) db.close();
  await rm(folder, { recursive: true, force: true });
});

/** A process's live catalogue on the shared file, whose announcements never reach Redis. */
async function openProcess(path: string) {
  const captured = captureLogger();
  const db = openSqlite({ path, busyTimeoutMs: 5_000 });
  dbs.push(db);
  const overrides = createSqliteCatalogueOverridesRepository(db);
  const redis = {
    publish: async (): Promise<number> => {
      throw new Error('Connection is closed.');
    },
  };
  const live = await createLiveCatalogue({
    base,
    overrides,
    availability,
    redis,
    channel: 'test:catalogue:changed',
    logger: captured.logger,
    versionCheckMs: 200,
  });
  await live.start();
  lives.push(live);
  return { live, admin: createCatalogueAdmin({ live, overrides }), logs: captured.lines };
}

describe('the live catalogue while Redis is down', () => {
  it('stores a change and spreads it to another process by the version check within 2 s', async () => {
    const path = join(folder, 'down.db');
    const one = await openProcess(path);
    const two = await openProcess(path);
    expect(two.live.get('demo/chat')?.enabled).toBe(true);
    await one.admin.updateModel('demo/chat', { enabled: false }, 'operator');
    // At once where it was made, though it could not be announced.
    expect(one.live.get('demo/chat')?.enabled).toBe(false);
    expect(one.logs().some((line) => String(line.msg).includes('not announced'))).toBe(true);
    const started = Date.now();
    while (two.live.get('demo/chat')?.enabled !== false && Date.now() - started < 2_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(two.live.get('demo/chat')?.enabled).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a snapshot taken before a change keeps its prices', async () => {
    const one = await openProcess(join(folder, 'pinned.db'));
    const held = one.live.current();
    const listPrice = held.get('demo/chat')?.pricing.input;
    await one.admin.updateModel(
      'demo/chat',
      { price_override: { input: 999, output: 999, cached_input: null } },
      'operator',
    );
    expect(one.live.get('demo/chat')?.pricing.input).toBe(999);
    expect(held.get('demo/chat')?.pricing.input).toBe(listPrice);
    expect(Object.isFrozen(held.get('demo/chat'))).toBe(true);
  });
});

describe('a snapshot', () => {
  const at = (entries: { subject: string; field: string; value: unknown }[]) =>
    buildSnapshot(
      base,
      {
        version: 1,
        entries: entries.map((e) => ({ ...e, value: e.value as never, updatedAt: new Date(0) })),
      },
      availability,
    );

  it('prices list-priced models from the rate and markup exactly, overridden ones as set', () => {
    const snapshot = at([
      { subject: 'exchange_rate', field: 'irt_per_usd', value: 100000 },
      { subject: 'markup', field: 'markup_percent', value: 12.5 },
      {
        subject: 'demo/chat-reasoning',
        field: 'price_override',
        value: { input: 3, output: 4, cached_input: null },
      },
      { subject: 'account:acct_x', field: 'price_multiplier', value: 0.9 },
    ]);
    // 0.01 USD × 100000 × 1.125 = 1125; 0.02 × 100000 × 1.125 = 2250.
    expect(snapshot.get('demo/chat')?.pricing).toMatchObject({ input: 1125, output: 2250 });
    expect(snapshot.get('demo/chat-reasoning')?.pricing).toMatchObject({
      input: 3,
      output: 4,
      cached_input: null,
    });
    expect(snapshot.forAccount('acct_x').get('demo/chat')?.pricing).toMatchObject({
      input: 1012.5,
      output: 2025,
    });
    expect(snapshot.forAccount('acct_other').get('demo/chat')?.pricing.input).toBe(1125);
    expect(snapshot.priceMultiplierOf('acct_x')).toBe(0.9);
    // A markup of −90 %: 0.01 × 105000 × 0.1 = 105.
    expect(
      at([{ subject: 'markup', field: 'markup_percent', value: -90 }]).get('demo/chat')?.pricing.input,
    ).toBe(105);
  });

  it('serves a model without a configured provider as disabled', () => {
    const none = buildSnapshot(
      base,
      { version: 0, entries: [] },
      { isRouteConfigured: (route) => route.provider === 'demo', simulateProviders: false },
    );
    expect(none.get('openai/gpt-4o-mini')?.enabled).toBe(false);
    expect(none.operatorState('openai/gpt-4o-mini')).toMatchObject({
      unavailable: true,
      enabledOverride: null,
    });
    expect(none.get('demo/chat')?.enabled).toBe(true);
  });
});
