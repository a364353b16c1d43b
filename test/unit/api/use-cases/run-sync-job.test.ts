import { describe, expect, it } from 'vitest';
import type { AdmissionContext } from '../../../../api/src/admission/admission-context.ts';
import type { CompletionHint, JobWaiter, WaitRequest } from '../../../../api/src/media/job-waiter.ts';
import { type MediaDeps, runSyncJob } from '../../../../api/src/use-cases/run-sync-job.ts';
import { loadCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';
import type { Queues } from '../../../../shared/src/jobs/job-catalogue.ts';
import type { MediaJob } from '../../../../shared/src/media-jobs/media-job.ts';
import type { MediaJobsRepository } from '../../../../shared/src/media-jobs/media-jobs.repository.ts';
import type { MediaStorage } from '../../../../shared/src/media-jobs/media-storage.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import { FIXTURE_NOW, imageJob } from '../../../helpers/media-job-fixture.ts';

// The orchestration alone: its collaborators answer as scripted (the end-to-end tests run the real ones).
const found = loadCatalogue().get('openai/gpt-image-1');
if (found === undefined) throw new Error('the catalogue has no openai/gpt-image-1');
const model = found;
const now = FIXTURE_NOW;
const completed = imageJob({
  status: 'completed',
  result: { kind: 'image', images: [{ key: 'media/img_1/0.png', revisedPrompt: null }] },
  progress: 100,
  completedAt: now,
});

interface Script {
  readonly settle?: () => Promise<void>;
  readonly hint?: CompletionHint;
  readonly markDelivered?: () => Promise<MediaJob | null>;
}

function setup(script: Script = {}) {
  const calls: string[] = [];
  const queued = imageJob();
  const deps = {
    jobs: {
      insertQueued: async () => queued,
      findById: async () => {
        calls.push('findById');
        return completed;
      },
      markDelivered: async () => {
        calls.push('markDelivered');
        return script.markDelivered ? script.markDelivered() : { ...completed, status: 'delivered' };
      },
      markDiscarded: async () => {
        calls.push('markDiscarded');
        return { ...completed, status: 'discarded' };
      },
    } as unknown as MediaJobsRepository,
    storage: {
      remove: async (keys: readonly string[]) => {
        calls.push(`remove ${keys.join(',')}`);
      },
    } as unknown as MediaStorage,
    handoff: { takeOr: (_name, read) => read(), drop: async () => undefined },
    queues: {
      image: {
        add: async () => {
          calls.push('enqueue');
        },
      },
    } as unknown as Queues,
    // Starts the job, then reads it as woken by a completion event carrying `hint`.
    waiter: {
      waitForEnd: async (_id: string, wait: WaitRequest) => {
        await wait.start();
        return { ended: await wait.read(script.hint) };
      },
    } as unknown as JobWaiter,
    // Like the real one: throws at once when the charge cannot be queued.
    billing: {
      settleDeferred: () => {
        calls.push('settle');
        return script.settle?.() ?? Promise.resolve();
      },
    },
    waitTimeoutMs: 1_000,
    now: () => now,
    logger: captureLogger().logger,
  } satisfies MediaDeps;
  const admission = {
    key: { id: 'key_1', accountId: 'acct_1' },
    holdId: 'img_1',
    holdOwner: 'request',
  } as AdmissionContext;
  return { deps, admission, calls };
}

describe('runSyncJob', () => {
  const request = { kind: 'image', input: { prompt: 'a cat', n: 1 } } as const;

  const signal = new AbortController().signal;

  it('reads the result, then marks the job delivered, then charges it', async () => {
    const { deps, admission, calls } = setup();
    const delivered = await runSyncJob(deps, {
      request,
      model,
      admission,
      signal,
      readResult: async () => {
        calls.push('read');
        return 'bytes';
      },
    });
    expect(delivered.read).toBe('bytes');
    expect(delivered.job.status).toBe('delivered');
    expect(admission.holdOwner).toBe('settlement');
    expect(calls).toEqual(['enqueue', 'findById', 'read', 'markDelivered', 'settle']);
  });

  it('takes the result from the completion event when it carries one, without reading the job back', async () => {
    const hint = { status: 'completed', result: completed.result };
    const { deps, admission, calls } = setup({ hint });
    const results: unknown[] = [];
    const delivered = await runSyncJob(deps, {
      request,
      model,
      admission,
      signal,
      readResult: async (result) => results.push(result),
    });
    expect(results).toEqual([completed.result]);
    expect(delivered.result).toEqual(completed.result);
    expect(calls).toEqual(['enqueue', 'markDelivered', 'settle']);
  });

  it('reads the job back when the event carries a result of another kind, or none', async () => {
    for (const hint of [
      { status: 'completed', result: { kind: 'speech', key: 'k', characters: 3 } },
      { status: 'discarded' },
    ]) {
      const { deps, admission, calls } = setup({ hint });
      await runSyncJob(deps, { request, model, admission, signal });
      expect(calls).toContain('findById');
    }
  });

  it('a media read that fails answers 502, discards the job and its media, and charges nothing', async () => {
    const { deps, admission, calls } = setup();
    const running = runSyncJob(deps, {
      request,
      model,
      admission,
      signal,
      readResult: () => Promise.reject(new Error('media missing')),
    });
    await expect(running).rejects.toMatchObject({ status: 502, code: 'media_unavailable' });
    expect(calls).not.toContain('markDelivered');
    expect(calls).not.toContain('settle');
    expect(calls).toContain('markDiscarded');
    expect(calls).toContain('remove media/img_1/0.png');
    expect(admission.holdOwner).toBe('request');
  });

  it('a client gone while the media was read gets nothing delivered nor charged (499)', async () => {
    const { deps, admission, calls } = setup();
    const client = new AbortController();
    const discarded: string[] = [];
    const running = runSyncJob(deps, {
      request,
      model,
      admission,
      signal: client.signal,
      readResult: async () => {
        client.abort();
        return 'open stream';
      },
      discardRead: (read) => discarded.push(read),
    });
    await expect(running).rejects.toMatchObject({ status: 499, code: 'client_closed_request' });
    expect(calls).not.toContain('markDelivered');
    expect(calls).not.toContain('settle');
    expect(calls).toContain('markDiscarded');
    expect(discarded).toEqual(['open stream']);
    expect(admission.holdOwner).toBe('request');
  });

  /** A run whose read opens a stream (speech): what it discarded of it is recorded. */
  function runReadingAStream(script: Script) {
    const { deps, admission, calls } = setup(script);
    const discarded: string[] = [];
    const running = runSyncJob(deps, {
      request,
      model,
      admission,
      signal,
      readResult: async () => 'open stream',
      discardRead: (read) => discarded.push(read),
    });
    return { running, admission, calls, discarded };
  }

  it('a delivered update that fails charges nothing and discards what was read', async () => {
    for (const markDelivered of [
      () => Promise.reject(new Error('MongoDB is away')),
      async () => null, // the job was no longer `completed`
    ]) {
      const { running, admission, calls, discarded } = runReadingAStream({ markDelivered });
      await expect(running).rejects.toThrow();
      expect(calls).not.toContain('settle');
      expect(admission.holdOwner).toBe('request');
      expect(discarded).toEqual(['open stream']);
    }
  });

  it('a charge that cannot be queued fails the request, leaves the hold to be released and discards what was read', async () => {
    const { running, admission, calls, discarded } = runReadingAStream({
      settle: () => {
        throw new Error('billing is closed');
      },
    });
    await expect(running).rejects.toThrow('billing is closed');
    expect(calls).toContain('markDelivered');
    expect(admission.holdOwner).toBe('request');
    expect(discarded).toEqual(['open stream']);
  });
});
