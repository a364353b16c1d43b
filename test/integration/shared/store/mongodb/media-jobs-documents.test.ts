/**
 * How the MongoDB store keeps media jobs: snake-case fields, as every other collection, and
 * documents of the collection's first, camel-case form renamed at start (with the indexes on the
 * old names dropped), so a store opened on an older database serves its jobs as before.
 */
import type { Db } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import type { MediaJobRequest } from '../../../../../shared/src/media-jobs/media-job.ts';
import { connectMongo } from '../../../../../shared/src/store/mongodb/connect.ts';
import { openMongoStore } from '../../../../../shared/src/store/mongodb/mongo-store.ts';
import type { Store } from '../../../../../shared/src/store/store.ts';
import { captureLogger } from '../../../../helpers/capture-logger.ts';
import { imageJob } from '../../../../helpers/media-job-fixture.ts';
import { freshMongoOptions, mongoServerOf } from '../store-under-test.ts';

const request: MediaJobRequest = { kind: 'video', input: { prompt: 'a boat at dawn', duration: 4 } };
const created = new Date('2030-01-01T00:00:00.000Z');
const JONGODB_NO_DROP_INDEXES = 'jongodb has no dropIndexes command; run with TEST_STACK=containers';

const opened: Store[] = [];

type MongoOptions = ReturnType<typeof freshMongoOptions>;
const databases: MongoOptions[] = [];

function freshOptions(): MongoOptions {
  const options = freshMongoOptions();
  databases.push(options);
  return options;
}

async function open(options: MongoOptions): Promise<Store> {
  const store = await openMongoStore(options, { logger: captureLogger().logger });
  opened.push(store);
  return store;
}

async function direct<T>(options: MongoOptions, use: (db: Db) => Promise<T>) {
  const mongo = await connectMongo(options);
  try {
    return await use(mongo.db);
  } finally {
    await mongo.client.close();
  }
}

afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((store) => store.close()));
  for (const options of databases.splice(0)) {
    await direct(options, (db) => db.dropDatabase()).catch(() => undefined);
  }
});

describe('MongoDB media_jobs documents', () => {
  it('stores a job under snake-case field names', async () => {
    const options = freshOptions();
    const store = await open(options);
    await store.mediaJobs.insertQueued(
      {
        id: 'video_snake',
        accountId: 'acct_1',
        keyId: 'key_1',
        model: 'openai/sora-2',
        request,
        holdMicros: 5n,
        deadlineAt: null,
      },
      created,
    );
    const doc = await direct(options, (db) =>
      db.collection('media_jobs').findOne({ _id: 'video_snake' as never }),
    );
    expect(Object.keys(doc ?? {}).sort()).toEqual(
      [
        '_id',
        'account_id',
        'completed_at',
        'cost_micros',
        'created_at',
        'deadline_at',
        'deleted_at',
        'error',
        'expires_at',
        'hold_micros',
        'key_id',
        'kind',
        'model',
        'operation',
        'progress',
        'request',
        'result',
        'status',
        'updated_at',
      ].sort(),
    );
  });

  it('renames the documents of the first, camel-case form at start', async () => {
    const options = freshOptions();
    await direct(options, async (db) => {
      // The first form was the domain record itself, with `_id` for its id.
      const { id, ...old } = imageJob({
        id: 'video_old',
        kind: 'video',
        accountId: 'acct_old',
        keyId: 'key_old',
        model: 'openai/sora-2',
        request,
        holdMicros: 7n,
        createdAt: created,
        updatedAt: created,
      });
      await db.collection('media_jobs').insertOne({ _id: id as never, ...old });
    });

    // Two replicas starting together on the same database: each document is renamed once.
    const [store] = await Promise.all([open(options), open(options)]);

    const job = await store.mediaJobs.findOwned('video_old', 'acct_old', 'video');
    expect(job).toMatchObject({
      id: 'video_old',
      accountId: 'acct_old',
      keyId: 'key_old',
      status: 'queued',
      createdAt: created,
      updatedAt: created,
      deletedAt: null,
    });
    expect(job?.holdMicros).toBe(7n);
    expect((await store.mediaJobs.listOwned('acct_old', 'video', 10)).map((j) => j.id)).toEqual([
      'video_old',
    ]);
    const running = await store.mediaJobs.markRunning('video_old', new Date('2030-01-01T00:01:00.000Z'));
    expect(running?.status).toBe('running');

    const doc = await direct(options, (db) =>
      db.collection('media_jobs').findOne({ _id: 'video_old' as never }),
    );
    expect(doc).not.toHaveProperty('accountId');
    expect(doc).not.toHaveProperty('createdAt');
    expect(doc).toMatchObject({ account_id: 'acct_old', key_id: 'key_old', created_at: created });
  });

  it('upgrades a database once: later starts read the record, not the jobs', async () => {
    const options = freshOptions();
    await open(options);
    const record = await direct(options, (db) =>
      db.collection('store_upgrades').findOne({ _id: 'media_jobs_snake_case' as never }),
    );
    expect(record?.done_at).toBeInstanceOf(Date);

    // A document of the old form written after the upgrade (a process of the earlier version still
    // running: the docs say to upgrade every replica together) is not looked for again.
    const { id, ...old } = imageJob({ id: 'img_late', createdAt: created, updatedAt: created });
    await direct(options, (db) => db.collection('media_jobs').insertOne({ _id: id as never, ...old }));
    await open(options);
    const late = await direct(options, (db) =>
      db.collection('media_jobs').findOne({ _id: 'img_late' as never }),
    );
    expect(late).toHaveProperty('createdAt');
    expect(late).not.toHaveProperty('created_at');
  });

  it('drops the indexes on the camel-case names', async ({ skip }) => {
    const options = freshOptions();
    skip((await direct(options, mongoServerOf)) === 'jongodb', JONGODB_NO_DROP_INDEXES);
    const indexNames = (db: Db) =>
      db
        .collection('media_jobs')
        .listIndexes()
        .toArray()
        .then((indexes) => indexes.map((index) => index.name as string));
    const before = await direct(options, async (db) => {
      await db.collection('media_jobs').createIndexes([
        { key: { accountId: 1, kind: 1, createdAt: -1 }, name: 'account_kind_created' },
        { key: { status: 1, kind: 1, updatedAt: 1, _id: 1 }, name: 'status_kind_updated' },
      ]);
      return indexNames(db);
    });
    expect(before).toContain('account_kind_created');

    // Two replicas starting together: the one that finds an index already dropped goes on.
    await Promise.all([open(options), open(options)]);

    const after = await direct(options, indexNames);
    expect(after).not.toContain('account_kind_created');
    expect(after).not.toContain('status_kind_updated');
    expect(after).toEqual(expect.arrayContaining(['account_kind_created_at', 'status_kind_updated_at']));
  });
});
