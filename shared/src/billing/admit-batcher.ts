import { ReplyError } from 'ioredis';
import { groupBySlot } from '../redis/hash-tags.ts';
import type { AdmitCall, AdmitReply } from './billing-scripts.ts';

/**
 * At most this many admissions share one script call; more leave in the next. A batch waits for
 * its last admission, so under bursts the first requests of a full batch wait while the api reads
 * the others: at 50 ms upstream with 50 clients a cap of 16 added 0.3 to 3 ms at p50 against 8 in
 * alternating runs, while at 0 ms 8 costs about 1 % more CPU per request than 16 and 4 about 7 %
 * (docs/money-core.md).
 */
export const MAX_ADMIT_BATCH = 8;

interface Waiting {
  readonly call: AdmitCall;
  readonly resolve: (reply: AdmitReply) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Sends the admissions of one turn of the event loop together: the calls made before the loop's
 * next check phase (`setImmediate`) leave in one script call, and a batch that reaches
 * `maxBatch` leaves at once, so Redis starts on the first requests of a burst while the api still
 * reads the rest. `send` runs one script call for the batch and answers one reply per call, in
 * order; a reply `['error', message]` fails that call alone with Redis's error (a `ReplyError`, as
 * if its own script call had failed: `READONLY …` after a failover still reads as an outage), and a
 * failed script call fails them all with its error.
 * Each admission stays what it was alone: the script checks the requests one after the other.
 * With `groupOf` (on a Cluster: the slot of the call's keys), a batch leaves as one script call
 * per group, each answered or failed on its own: a script runs on the keys of one slot only.
 */
export function createAdmitBatcher(
  send: (calls: readonly AdmitCall[]) => Promise<readonly unknown[]>,
  maxBatch = MAX_ADMIT_BATCH,
  groupOf?: (call: AdmitCall) => string,
): (call: AdmitCall) => Promise<AdmitReply> {
  let waiting: Waiting[] = [];
  let scheduled = false;

  const flush = (): void => {
    if (waiting.length === 0) return;
    const all = waiting;
    waiting = [];
    if (groupOf === undefined) sendBatch(all);
    else for (const group of groupBySlot(all, (w) => groupOf(w.call))) sendBatch(group);
  };

  const sendBatch = (batch: readonly Waiting[]): void => {
    send(batch.map((w) => w.call)).then(
      (replies) => {
        for (const [i, w] of batch.entries()) settle(w, replies[i]);
      },
      (err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        for (const w of batch) w.reject(error);
      },
    );
  };

  const onImmediate = (): void => {
    scheduled = false;
    flush();
  };

  return (call) =>
    new Promise<AdmitReply>((resolve, reject) => {
      waiting.push({ call, resolve, reject });
      if (waiting.length >= maxBatch) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(onImmediate);
      }
    });
}

function settle(waiting: Waiting, reply: unknown): void {
  if (!Array.isArray(reply)) {
    const [, , requestId] = waiting.call.args;
    waiting.reject(new Error(`admission script: no reply for request ${requestId}`));
  } else if (reply[0] === 'error') {
    waiting.reject(new ReplyError(String(reply[1])));
  } else waiting.resolve(reply as unknown as AdmitReply);
}
