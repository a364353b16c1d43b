import { observeTimeToFirstToken } from '../../../shared/src/observability/http-metrics.ts';
import type { ChatStream } from '../../../shared/src/providers/chat-route.ts';
import { type ChatChunk, UpstreamStreamError } from '../../../shared/src/providers/chat-types.ts';
import { usableRoutes } from '../../../shared/src/providers/provider-registry.ts';
import { noteFailedAfterStatus } from '../../../shared/src/request-log/request-draft.ts';
import { firstSuccessfulRoute } from '../../../shared/src/upstream/route-attempts.ts';
import { type ChatDeps, settleUsage } from '../chat/chat-context.ts';
import {
  type ChatIdentity,
  chatIdentity,
  chunkLineWriter,
  SSE_DONE,
  sseData,
  streamErrorObject,
  usageChunkObject,
} from '../chat/chat-wire.ts';
import {
  batchIterator,
  chunkCharacters,
  cutStreamUsage,
  drainRest,
  estimatedUsage,
} from '../chat/stream-drain.ts';
import { closeIterator } from '../streaming/close-iterator.ts';
import { StreamCallSignal } from '../streaming/stream-call-signal.ts';
import type { CompleteChatInput } from './complete-chat.ts';

/**
 * Opens a streamed chat completion. Routes are tried (with fallback) until one answers 200, before
 * any byte goes to the client, so failures up to then are ordinary HTTP errors. The returned
 * generator yields the `data:` lines; see `relay` for what happens after the first byte.
 */
export async function openChatStream(
  deps: ChatDeps,
  input: CompleteChatInput,
): Promise<AsyncGenerator<string>> {
  const call = new StreamCallSignal({
    answer: input.signal,
    stopping: input.stopping,
    drainMs: deps.config.streamDrainMs,
  });
  try {
    const routes = usableRoutes(input.model, deps);
    const { route: served, value: stream } = await firstSuccessfulRoute(
      routes,
      'chat',
      (route) => route.stream(input.request, call.signal),
      input.admission.draft,
    );
    const identity = chatIdentity(input.requestId, input.model.id, deps.now());
    return relay(deps, input, { provider: served.provider, stream, call }, identity);
  } catch (err) {
    call.dispose();
    throw err;
  }
}

/** A stream whose route answered: who serves it, its events, and its call's signal. */
interface OpenStream<E> {
  readonly provider: string;
  readonly stream: ChatStream<E>;
  readonly call: StreamCallSignal;
}

/**
 * Relays chunks to the client. At the end it charges the usage the upstream reported, sends the
 * usage chunk when the client asked for it (with the cost as the `service` extension), then
 * `[DONE]`. A failure after the first byte becomes an error event and `[DONE]`, and nothing is
 * charged; so does the api's stop (a 503 error event). A client that goes away is charged as
 * `chargeAfterClientLeft` says.
 */
async function* relay<E>(
  deps: ChatDeps,
  input: CompleteChatInput,
  open: OpenStream<E>,
  identity: ChatIdentity,
): AsyncGenerator<string> {
  const { stream, call } = open;
  // Read by hand, not with `for await`: leaving the loop (the client gone) must not close the
  // upstream, which is read on for its usage (`chargeAfterClientLeft`).
  const batches = batchIterator(stream.batches);
  const chunkLine = chunkLineWriter(identity);
  const produced = { characters: 0 };
  let outcome: 'completed' | 'failed' | 'gone' = 'gone';
  try {
    for (let next = await batches.next(); next.done !== true; next = await batches.next()) {
      // What one upstream read brought goes out in one write: a socket write per event costs
      // the api more than the rest of relaying it.
      const { lines, failure } = translateBatch(next.value, stream, chunkLine, produced);
      if (lines !== '') {
        if (!call.outputSent) observeFirstToken(input);
        call.outputRelayed();
        // An event that broke the stream: the chunks before it still reach the client first.
        yield lines;
      }
      if (failure !== undefined) throw failure;
    }
    outcome = 'completed';
  } catch (err) {
    const end = brokenOff(err, call, input.signal);
    outcome = end.outcome;
    if (end.outcome === 'failed') noteFailedAfterStatus(input.admission.draft, end.code ?? 502);
    if (end.lines !== undefined) yield end.lines;
    return;
  } finally {
    try {
      if (outcome === 'gone') await chargeAfterClientLeft(deps, input, open, batches, produced.characters);
      else await closeIterator(batches);
    } finally {
      call.dispose();
    }
  }
  const usage = stream.translator.finish().usage ?? estimatedUsage(input.request, produced.characters);
  const costMicros = await settleUsage(deps, input.admission, input.model, usage, open.provider);
  // The usage chunk and the terminator in one write (each yield is a socket write of its own).
  yield input.request.stream_options?.include_usage
    ? sseData(usageChunkObject(identity, usage, costMicros)) + SSE_DONE
    : SSE_DONE;
}

/**
 * The `data:` lines of one batch of upstream events, counting the characters they carry; an event
 * that breaks the stream (an error event) ends the batch, with the lines before it.
 */
function translateBatch<E>(
  events: readonly E[],
  stream: ChatStream<E>,
  chunkLine: (chunk: ChatChunk) => string,
  produced: { characters: number },
): { lines: string; failure?: unknown } {
  let lines = '';
  try {
    // Index loops: no iterator objects per event.
    for (let e = 0; e < events.length; e += 1) {
      const chunks = stream.translator.onEvent(events[e] as E);
      for (let c = 0; c < chunks.length; c += 1) {
        const chunk = chunks[c] as ChatChunk;
        produced.characters += chunkCharacters(chunk);
        lines += chunkLine(chunk);
      }
    }
    return { lines };
  } catch (failure) {
    return { lines, failure };
  }
}

/**
 * How a relay that broke off ends, and what it still writes. Nothing is written once the client
 * left (a write then would never be read past).
 * - the api stops: a 503 error event and `[DONE]`, not charged;
 * - the call was cut because the client left (at once, or when its drain ended): `gone`;
 * - the upstream failed: its error event and `[DONE]`, not charged (nor after the client left).
 */
function brokenOff(
  err: unknown,
  call: StreamCallSignal,
  answer: AbortSignal,
): { outcome: 'failed' | 'gone'; lines?: string; code?: number } {
  if (call.cut === 'stopping' && !call.draining)
    return {
      outcome: 'failed',
      code: 503,
      lines: sseData(streamErrorObject(503, STOPPING_MESSAGE)) + SSE_DONE,
    };
  if (call.cut !== undefined) return { outcome: 'gone' };
  if (call.draining || answer.aborted) return { outcome: 'failed' };
  const status = err instanceof UpstreamStreamError ? err.status : 502;
  const message = err instanceof UpstreamStreamError ? err.message : 'The provider stream broke off.';
  // One write: the error event and the terminator.
  return { outcome: 'failed', code: status, lines: sseData(streamErrorObject(status, message)) + SSE_DONE };
}

/** What the client of a stream the api ends because it stops reads in the error event. */
const STOPPING_MESSAGE = 'The service is restarting; nothing was charged for this answer. Retry.';

/**
 * The relay was closed before its end: its client left. Before any output the upstream call was
 * aborted at once, and the tokens it reported until then, if any, are charged. After output it is
 * read on for up to `STREAM_DRAIN_MS` (`stream-drain.ts`), then charged what that read shows.
 */
async function chargeAfterClientLeft<E>(
  deps: ChatDeps,
  input: CompleteChatInput,
  open: OpenStream<E>,
  batches: AsyncIterator<readonly E[]>,
  relayedCharacters: number,
): Promise<void> {
  const { stream, call, provider } = open;
  // The connection's close may come later than the relay's: the client left either way.
  call.clientLeft();
  if (!call.draining) {
    await closeIterator(batches);
    const reported = stream.translator.finish().usage;
    if (reported === undefined || reported.inputTokens + reported.outputTokens === 0) return;
    await settleUsage(deps, input.admission, input.model, reported, provider);
    return;
  }
  let produced = relayedCharacters;
  const end = await drainRest(batches, stream, call, (chunk) => {
    produced += chunkCharacters(chunk);
  });
  if (end === 'failed') return;
  const reported = stream.translator.finish().usage;
  const usage =
    end === 'completed'
      ? (reported ?? estimatedUsage(input.request, produced))
      : cutStreamUsage(input.request, reported, produced);
  await settleUsage(deps, input.admission, input.model, usage, provider);
}

/** Records how long the stream took, since its request arrived, to relay its first chunk. */
function observeFirstToken(input: CompleteChatInput): void {
  observeTimeToFirstToken(input.model.id, (performance.now() - input.receivedAt) / 1000);
}
