import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type {
  MediaJob,
  MediaJobError,
  MediaJobRequest,
  MediaJobResult,
  MediaJobStatus,
  ProviderOperation,
} from '../../../../shared/src/media-jobs/media-job.ts';
import type {
  MediaJobsRepository,
  NewMediaJob,
} from '../../../../shared/src/media-jobs/media-jobs.repository.ts';
import { describeEachStore, JONGODB_RACES } from './store-under-test.ts';

const created = new Date('2030-01-01T00:00:00.000Z');
const at = new Date('2030-01-01T00:05:00.123Z');
const expiresAt = new Date('2030-01-08T00:00:00.000Z');

const STATUSES: readonly MediaJobStatus[] = [
  'queued',
  'running',
  'completed',
  'failed',
  'cancelled',
  'delivered',
  'discarded',
];

const operation: ProviderOperation = {
  provider: 'openai',
  nativeModel: 'sora-2',
  operationId: 'video_68d2f1',
  submittedAt: new Date('2030-01-01T00:01:02.345Z'),
};
const imageResult: MediaJobResult = {
  kind: 'image',
  images: [
    { key: 'media/img_1/0.png', revisedPrompt: 'a cat, sitting', handoff: 'handoff:img_1:0' },
    { key: 'media/img_1/1.png', revisedPrompt: null },
  ],
};
const failure: MediaJobError = {
  message: 'The provider failed.',
  status: 502,
  type: 'upstream_error',
  code: 429,
};

type Run = (jobs: MediaJobsRepository, id: string, now: Date) => Promise<MediaJob | null>;

/** Each state change: the states it moves from, where to, and the fields it sets besides those. */
const MOVES: ReadonlyArray<{
  name: string;
  from: readonly MediaJobStatus[];
  to: MediaJobStatus;
  run: Run;
  sets: (now: Date) => Partial<MediaJob>;
}> = [
  {
    name: 'markRunning',
    from: ['queued', 'running'],
    to: 'running',
    run: (j, id, now) => j.markRunning(id, now),
    sets: () => ({}),
  },
  {
    name: 'recordOperation',
    from: ['running'],
    to: 'running',
    run: (j, id, now) => j.recordOperation(id, operation, now),
    sets: () => ({ operation }),
  },
  {
    name: 'recordProgress',
    from: ['running'],
    to: 'running',
    run: (j, id, now) => j.recordProgress(id, 42.5, now),
    sets: () => ({ progress: 42.5 }),
  },
  {
    name: 'markCompleted',
    from: ['running'],
    to: 'completed',
    run: (j, id, now) => j.markCompleted(id, imageResult, 7_000n, expiresAt, now),
    sets: (now) => ({ result: imageResult, costMicros: 7_000n, progress: 100, completedAt: now, expiresAt }),
  },
  {
    name: 'markFailed',
    from: ['queued', 'running'],
    to: 'failed',
    run: (j, id, now) => j.markFailed(id, failure, now),
    sets: () => ({ error: failure }),
  },
  {
    name: 'markDelivered',
    from: ['completed'],
    to: 'delivered',
    run: (j, id, now) => j.markDelivered(id, 9_000n, now),
    sets: () => ({ costMicros: 9_000n }),
  },
  {
    name: 'markCancelled',
    from: ['queued', 'running'],
    to: 'cancelled',
    run: (j, id, now) => j.markCancelled(id, now),
    sets: () => ({}),
  },
  {
    name: 'markDiscarded',
    from: ['completed'],
    to: 'discarded',
    run: (j, id, now) => j.markDiscarded(id, now),
    sets: () => ({}),
  },
];

const run = (name: string): Run => (MOVES.find((move) => move.name === name) as { run: Run }).run;

/** The moves that bring a new job to each state. */
const PATHS: Readonly<Record<MediaJobStatus, readonly Run[]>> = {
  queued: [],
  running: [run('markRunning')],
  completed: [run('markRunning'), run('markCompleted')],
  failed: [run('markFailed')],
  cancelled: [run('markCancelled')],
  delivered: [run('markRunning'), run('markCompleted'), run('markDelivered')],
  discarded: [run('markRunning'), run('markCompleted'), run('markDiscarded')],
};

function newJob(overrides: Partial<NewMediaJob> = {}): NewMediaJob {
  return {
    id: `img_${randomBytes(8).toString('hex')}`,
    accountId: 'acct_1',
    keyId: 'key_1',
    model: 'openai/gpt-image-1',
    request: { kind: 'image', input: { prompt: 'a cat', n: 1 } },
    holdMicros: 1_000n,
    deadlineAt: null,
    ...overrides,
  };
}

describeEachStore('media jobs repository', (store) => {
  const jobs = () => store().mediaJobs;

  async function jobIn(status: MediaJobStatus, overrides: Partial<NewMediaJob> = {}): Promise<MediaJob> {
    const job = await jobs().insertQueued(newJob(overrides), created);
    for (const step of PATHS[status]) await step(jobs(), job.id, created);
    const stored = await jobs().findById(job.id);
    expect(stored?.status).toBe(status);
    return stored as MediaJob;
  }

  it('inserts a queued job with every field set, and finds it by id', async () => {
    const input = newJob({ holdMicros: 9_007_199_254_740_993n, deadlineAt: expiresAt });
    const job = await jobs().insertQueued(input, created);
    expect(job).toEqual({
      id: input.id,
      kind: 'image',
      accountId: 'acct_1',
      keyId: 'key_1',
      model: 'openai/gpt-image-1',
      status: 'queued',
      request: input.request,
      holdMicros: 9_007_199_254_740_993n,
      result: null,
      costMicros: null,
      error: null,
      progress: 0,
      operation: null,
      deadlineAt: expiresAt,
      createdAt: created,
      updatedAt: created,
      completedAt: null,
      expiresAt: null,
      deletedAt: null,
    } satisfies MediaJob);
    expect(await jobs().findById(input.id)).toEqual(job);
    expect(await jobs().findById('img_missing')).toBeNull();
  });

  it('finds a job only for its account and kind, and not once deleted', async () => {
    const job = await jobIn('queued', { accountId: 'acct_owner' });
    expect(await jobs().findOwned(job.id, 'acct_owner', 'image')).toEqual(job);
    expect(await jobs().findOwned(job.id, 'acct_someone_else', 'image')).toBeNull();
    expect(await jobs().findOwned(job.id, 'acct_owner', 'video')).toBeNull();
    expect(await jobs().findOwned('img_missing', 'acct_owner', 'image')).toBeNull();
    expect(await jobs().markDeleted(job.id, 'acct_owner', at)).toBe(true);
    expect(await jobs().findOwned(job.id, 'acct_owner', 'image')).toBeNull();
  });

  it('lists the account jobs of one kind that are not deleted, newest first, up to the limit', async () => {
    const video = (prompt: string): MediaJobRequest => ({ kind: 'video', input: { prompt, duration: 4 } });
    const insert = (request: MediaJobRequest, accountId: string, minute: number) =>
      jobs().insertQueued(
        newJob({ id: `video_${randomBytes(8).toString('hex')}`, accountId, request }),
        new Date(created.getTime() + minute * 60_000),
      );
    const oldest = await insert(video('oldest'), 'acct_list', 1);
    const newest = await insert(video('newest'), 'acct_list', 3);
    const middle = await insert(video('middle'), 'acct_list', 2);
    const deleted = await insert(video('deleted'), 'acct_list', 4);
    await jobs().markDeleted(deleted.id, 'acct_list', at);
    await insert(video('other account'), 'acct_list_other', 5);
    await insert({ kind: 'image', input: { prompt: 'other kind', n: 1 } }, 'acct_list', 6);

    const ids = async (limit: number) =>
      (await jobs().listOwned('acct_list', 'video', limit)).map((j) => j.id);
    expect(await ids(10)).toEqual([newest.id, middle.id, oldest.id]);
    expect(await ids(2)).toEqual([newest.id, middle.id]);
    expect(await jobs().listOwned('acct_list', 'video', 1)).toEqual([newest]);
    expect(await jobs().listOwned('acct_nobody', 'video', 10)).toEqual([]);
  });

  it.each(MOVES)('$name moves a job from $from only, and leaves it unchanged otherwise', async (move) => {
    for (const status of STATUSES) {
      const before = await jobIn(status);
      const after = await move.run(jobs(), before.id, at);
      if (move.from.includes(status)) {
        expect(after, `from ${status}`).toEqual({
          ...before,
          ...move.sets(at),
          status: move.to,
          updatedAt: at,
        });
        expect(await jobs().findById(before.id)).toEqual(after);
      } else {
        expect(after, `from ${status}`).toBeNull();
        expect(await jobs().findById(before.id)).toEqual(before);
      }
    }
  });

  it.each(MOVES)('$name answers null for a job that does not exist', async (move) => {
    expect(await move.run(jobs(), 'img_missing', at)).toBeNull();
  });

  it('lets one of two concurrent final moves win', async ({ skip }) => {
    skip(store().server === 'jongodb', JONGODB_RACES);
    for (let round = 0; round < 5; round++) {
      const job = await jobIn('running');
      const [completed, cancelled] = await Promise.all([
        jobs().markCompleted(job.id, imageResult, 1n, null, at),
        jobs().markCancelled(job.id, at),
      ]);
      expect([completed, cancelled].filter((result) => result !== null)).toHaveLength(1);
      expect((await jobs().findById(job.id))?.status).toBe((completed ?? cancelled)?.status);
    }
  });

  it('soft-deletes the account job once; it is still found by id', async () => {
    const job = await jobIn('completed', { accountId: 'acct_del' });
    expect(await jobs().markDeleted(job.id, 'acct_other', at)).toBe(false);
    expect(await jobs().markDeleted(job.id, 'acct_del', at)).toBe(true);
    expect(await jobs().markDeleted(job.id, 'acct_del', at)).toBe(false);
    expect(await jobs().markDeleted('img_missing', 'acct_del', at)).toBe(false);
    expect(await jobs().findById(job.id)).toEqual({ ...job, deletedAt: at, updatedAt: at });
  });

  describe('listUnfinished (the reconciler)', () => {
    // Each test's jobs live in a window of their own, long before every other test's (2030); a
    // cursor just before a window's start bounds a query to it from below.
    const base = new Date('2001-01-01T00:00:00.000Z');
    const from = (start: Date) => ({ updatedAt: new Date(start.getTime() - 1), id: '' });
    const minute = (n: number) => new Date(base.getTime() + n * 60_000);
    const video = (): Partial<NewMediaJob> => ({
      id: `video_${randomBytes(8).toString('hex')}`,
      request: { kind: 'video', input: { prompt: 'waves', duration: 4 } },
    });
    const speech = (): Partial<NewMediaJob> => ({
      id: `tts_${randomBytes(8).toString('hex')}`,
      request: { kind: 'speech', input: { input: 'hi', voice: 'alloy' } },
    });

    /** A job brought to `status` with every move at `at` (its updatedAt). */
    async function jobAt(status: MediaJobStatus, at: Date, overrides: Partial<NewMediaJob> = {}) {
      const job = await jobs().insertQueued(newJob(overrides), at);
      for (const step of PATHS[status]) await step(jobs(), job.id, at);
      return (await jobs().findById(job.id)) as MediaJob;
    }

    it('lists queued and running jobs of every kind and completed synchronous jobs, oldest update first', async () => {
      const expected = [
        await jobAt('queued', minute(1)),
        await jobAt('running', minute(2), video()),
        await jobAt('completed', minute(3)),
        await jobAt('completed', minute(4), speech()),
        await jobAt('queued', minute(5), video()),
      ];
      // Final, or a completed video (final too): never listed.
      for (const status of ['failed', 'cancelled', 'delivered', 'discarded'] as const)
        await jobAt(status, minute(2));
      await jobAt('completed', minute(2), video());
      // Updated too recently.
      await jobAt('running', minute(30));

      const listed = await jobs().listUnfinished(minute(10), 100, from(base));
      expect(listed.map((job) => [job.id, job.status, job.kind])).toEqual(
        expected.map((job) => [job.id, job.status, job.kind]),
      );
      expect(listed).toEqual(expected);
      expect(await jobs().listUnfinished(minute(1), 100, from(base))).toEqual([]);
      const justAfter = new Date(minute(1).getTime() + 1);
      expect((await jobs().listUnfinished(justAfter, 100, from(base))).map((j) => j.id)).toEqual([
        expected[0]?.id,
      ]);
      expect(await jobs().listUnfinished(minute(10), 2, from(base))).toEqual(expected.slice(0, 2));
    });

    it('pages by (updatedAt, id), ties included, and honours the limit', async () => {
      const older = new Date('2002-06-01T00:00:00.000Z');
      const olderThan = new Date('2002-06-02T00:00:00.000Z');
      const tied = [];
      for (let i = 0; i < 5; i++) tied.push(await jobAt(i % 2 === 0 ? 'queued' : 'completed', older));
      const later = await jobAt('running', new Date(older.getTime() + 1), video());
      const all = [...tied.sort((a, b) => (a.id < b.id ? -1 : 1)), later].map((job) => job.id);

      const seen: string[] = [];
      let after = from(older);
      for (let round = 0; round < 10; round++) {
        const page = await jobs().listUnfinished(olderThan, 2, after);
        expect(page.length).toBeLessThanOrEqual(2);
        seen.push(...page.map((job) => job.id));
        const last = page.at(-1);
        if (page.length < 2 || last === undefined) break;
        after = { updatedAt: last.updatedAt, id: last.id };
      }
      expect(seen).toEqual(all);
    });

    it('stops listing a job once it moves on (and a move makes it recent again)', async () => {
      const at = new Date('2003-01-01T00:00:00.000Z');
      const olderThan = new Date('2003-01-02T00:00:00.000Z');
      const completed = await jobAt('completed', at);
      const running = await jobAt('running', at, video());
      const queued = await jobAt('queued', at, speech());
      const ids = async () =>
        (await jobs().listUnfinished(olderThan, 10, from(at))).map((job) => job.id).sort();
      expect(await ids()).toEqual([completed.id, running.id, queued.id].sort());
      await jobs().markDiscarded(completed.id, olderThan);
      await jobs().markFailed(running.id, failure, olderThan);
      await jobs().recordProgress(queued.id, 1, at); // not running: no move, still listed
      expect(await ids()).toEqual([queued.id]);
      await jobs().markRunning(queued.id, olderThan);
      expect(await ids()).toEqual([]);
    });
  });

  it('keeps every request kind as given', async () => {
    const requests: Array<[string, MediaJobRequest]> = [
      [
        'img',
        {
          kind: 'image',
          input: {
            prompt: 'a cat «گربه»',
            n: 4,
            size: '1024x1536',
            quality: 'high',
            background: 'transparent',
            aspect_ratio: '2:3',
          },
        },
      ],
      [
        'tts',
        {
          kind: 'speech',
          input: { input: 'Hello.\nWorld', voice: 'alloy', instructions: 'calm', speed: 1.25 },
        },
      ],
      [
        'stt',
        {
          kind: 'transcription',
          input: {
            language: 'fa',
            prompt: 'names',
            fileName: 'talk.mp3',
            contentType: 'audio/mpeg',
            sizeBytes: 5_000_000_000,
            durationSeconds: 61.5,
          },
        },
      ],
      [
        'video',
        { kind: 'video', input: { prompt: 'waves', duration: 8, aspect_ratio: '9:16', resolution: '1080p' } },
      ],
    ];
    for (const [prefix, request] of requests) {
      const job = await jobs().insertQueued(
        newJob({ id: `${prefix}_${randomBytes(8).toString('hex')}`, accountId: 'acct_kinds', request }),
        created,
      );
      expect(job.kind).toBe(request.kind);
      expect(await jobs().findOwned(job.id, 'acct_kinds', request.kind)).toEqual({ ...job, request });
    }
  });

  it('keeps every result kind, the error, the operation with its date, and money above 2^53', async () => {
    const results: MediaJobResult[] = [
      imageResult,
      { kind: 'image', images: [] },
      { kind: 'speech', key: 'media/tts_1.mp3', characters: 1234 },
      {
        kind: 'transcription',
        text: 'سلام world',
        language: null,
        duration: 3.25,
        words: [
          { word: 'سلام', start: 0, end: 0.5 },
          { word: 'world', start: 0.75, end: 1.125 },
        ],
      },
      { kind: 'video', key: 'media/video_1.mp4', seconds: 8, sizeBytes: 12_345_678 },
    ];
    const cost = 2n ** 63n - 1n;
    for (const result of results) {
      const job = await jobIn('running', { holdMicros: 2n ** 53n + 1n });
      await jobs().recordOperation(job.id, operation, at);
      const completed = await jobs().markCompleted(job.id, result, cost, null, at);
      const stored = await jobs().findById(job.id);
      expect(stored).toEqual(completed);
      expect(stored).toMatchObject({ result, costMicros: cost, holdMicros: 2n ** 53n + 1n, expiresAt: null });
      expect(stored?.operation?.submittedAt).toBeInstanceOf(Date);
      expect(stored?.operation).toEqual(operation);
    }
    for (const error of [failure, { ...failure, code: 'content_policy_violation', status: 400 }]) {
      const job = await jobIn('queued');
      await jobs().markFailed(job.id, error, at);
      expect((await jobs().findById(job.id))?.error).toEqual(error);
    }
    const free = await jobIn('running');
    expect(await jobs().markCompleted(free.id, imageResult, null, null, at)).toMatchObject({
      costMicros: null,
    });
  });
});
