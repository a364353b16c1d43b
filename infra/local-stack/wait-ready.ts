import { setTimeout as sleep } from 'node:timers/promises';
import { StackError } from './stack-log.ts';

const POLL_INTERVAL_MS = 250;
const REQUEST_TIMEOUT_MS = 2_000;

/**
 * Polls `GET {origin}/readyz` until it answers 200. Throws a StackError with the last answer when
 * `timeoutMs` passes, or the abort reason when `signal` is aborted (a child died, a signal came).
 */
export async function waitUntilReady(origin: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastAnswer = 'no answer yet';
  while (Date.now() < deadline) {
    signal.throwIfAborted();
    const answer = await probe(`${origin}/readyz`, signal);
    if (answer === 'ready') return;
    lastAnswer = answer;
    await sleep(POLL_INTERVAL_MS, undefined, { signal }).catch(() => signal.throwIfAborted());
  }
  throw new StackError(
    `the api was not ready after ${timeoutMs / 1000} s (last answer from /readyz: ${lastAnswer})`,
  );
}

async function probe(url: string, signal: AbortSignal): Promise<string> {
  try {
    const response = await fetch(url, {
      signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    });
    const body = await response.text();
    return response.status === 200 ? 'ready' : `${response.status} ${body.slice(0, 300)}`;
  } catch (err) {
    signal.throwIfAborted();
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : '';
    return `${err instanceof Error ? err.message : String(err)}${cause ? ` (${cause})` : ''}`;
  }
}
