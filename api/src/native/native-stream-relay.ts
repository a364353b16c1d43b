import type { FastifyReply } from 'fastify';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import type { NativeUsage } from '../../../shared/src/native/native-usage.ts';
import { cutStreamUsage } from '../../../shared/src/native/stream/cut-usage.ts';
import type { StreamProtocol } from '../../../shared/src/native/stream/stream-protocol.ts';
import type { StreamUsage, UsageAccumulator } from '../../../shared/src/native/stream/usage-accumulator.ts';
import { observeTimeToFirstToken } from '../../../shared/src/observability/http-metrics.ts';
import { closeIterator } from '../streaming/close-iterator.ts';
import type { StreamCallSignal } from '../streaming/stream-call-signal.ts';
import type { NativeAnswer } from './forward-native.ts';

/** How a native stream is watched: its usage, its protocol, and its call's signal. */
export interface NativeStream {
  readonly accumulator: UsageAccumulator<NativeUsage>;
  readonly protocol: StreamProtocol;
  readonly call: StreamCallSignal;
}

/** Whose stream it is: the model (metrics, estimates), and how a usage is charged. */
export interface StreamBilling {
  readonly model: Pick<CatalogueModel, 'id' | 'context_window'>;
  /** Charges the stream its usage, once (the relay calls it at most once). */
  charge(usage: NativeUsage): Promise<void>;
}

/** What the client of a stream the api ends because it stops reads in the error. */
const STOPPING_MESSAGE = 'The service is restarting; nothing was charged for this answer. Retry.';

/**
 * The bytes of a native answer as they arrive, each passed on unchanged and at once while the
 * stream's accumulator and protocol watch them (docs/native.md, "Streams"):
 * - the stream ends with the protocol's final event: charged the usage it reported;
 * - the upstream fails mid-stream: nothing charged; the client's connection is broken off (a clean
 *   end would present a cut answer as a whole one);
 * - the api stops: ended in the protocol's own error event (an audio stream is broken off),
 *   nothing charged;
 * - the client leaves: `chargeAfterClientLeft`.
 */
export async function* relayNativeStream(
  reply: FastifyReply,
  answer: NativeAnswer,
  stream: NativeStream,
  billing: StreamBilling,
): AsyncGenerator<Uint8Array> {
  const { call } = stream;
  // Read by hand, not with `for await`: leaving the loop (the client gone) must not close the
  // upstream, which is read on for its usage.
  const body = answer.response.body[Symbol.asyncIterator]();
  let ended: 'completed' | 'failed' | 'gone' = 'gone';
  try {
    for (let next = await body.next(); next.done !== true; next = await body.next()) {
      watch(stream, next.value);
      if (!call.outputSent) observeTimeToFirstToken(billing.model.id, reply.elapsedTime / 1000);
      call.outputRelayed();
      yield next.value;
    }
    ended = 'completed';
  } catch (err) {
    // Nothing is written once the client left: a write then would never be read past.
    if (call.cut === 'stopping' && !call.draining) {
      ended = 'failed';
      const end = stream.protocol.errorEnd(STOPPING_MESSAGE);
      if (end === undefined)
        throw new Error('the api stopped: an audio stream is broken off', { cause: err });
      yield end;
      return;
    }
    if (call.cut !== undefined) return;
    ended = 'failed';
    if (call.draining) return;
    reply.request.log.warn({ err }, 'a native stream broke off; nothing is charged');
    throw new Error('the provider broke the stream off', { cause: err });
  } finally {
    try {
      if (ended === 'gone') await chargeAfterClientLeft(reply, body, stream, billing);
      else await closeIterator(body);
      if (ended === 'completed') await chargeCompleted(reply, stream.accumulator.finish(), billing);
    } finally {
      call.dispose();
    }
  }
}

function watch(stream: NativeStream, chunk: Uint8Array): void {
  stream.accumulator.push(chunk);
  stream.protocol.push(chunk);
}

/** A stream that ended as its protocol ends it is charged its usage; one without its final event, nothing. */
async function chargeCompleted(reply: FastifyReply, seen: StreamUsage<NativeUsage>, billing: StreamBilling) {
  if (seen.usage !== undefined && seen.complete) await billing.charge(seen.usage);
  else reply.request.log.warn({ problem: seen.problem }, 'a native stream ended without its final event');
}

/**
 * The relay was closed before its end: its client left. Before any output the upstream call was
 * aborted at once, and the usage it reported until then, if any, is charged. After output it is
 * read on for up to `STREAM_DRAIN_MS`: charged the usage it reported when it ends in time, what
 * was read (`cutStreamUsage`) when it is cut, nothing when it fails.
 */
async function chargeAfterClientLeft(
  reply: FastifyReply,
  body: AsyncIterator<Uint8Array>,
  stream: NativeStream,
  billing: StreamBilling,
): Promise<void> {
  const { call, accumulator } = stream;
  call.clientLeft();
  if (!call.draining) {
    await closeIterator(body);
    const reported = accumulator.finish().usage;
    if (reported !== undefined) await billing.charge(reported);
    return;
  }
  const end = await drainBody(body, stream);
  if (end === 'failed') return;
  const seen = accumulator.finish();
  if (end === 'completed') return chargeCompleted(reply, seen, billing);
  const usage = cutStreamUsage(seen.usage, {
    producedCharacters: stream.protocol.producedCharacters(),
    requestBytes: requestBytes(reply),
    contextWindow: billing.model.context_window ?? undefined,
  });
  if (usage !== undefined) await billing.charge(usage);
}

/** Reads the rest of a body nobody receives any more, watching it, until it ends, fails or is cut. */
async function drainBody(
  body: AsyncIterator<Uint8Array>,
  stream: NativeStream,
): Promise<'completed' | 'cut' | 'failed'> {
  try {
    for (let next = await body.next(); next.done !== true; next = await body.next())
      watch(stream, next.value);
    return stream.call.cut === undefined ? 'completed' : 'cut';
  } catch {
    return stream.call.cut === undefined ? 'failed' : 'cut';
  } finally {
    await closeIterator(body);
  }
}

function requestBytes(reply: FastifyReply): number {
  const body = reply.request.body;
  return body instanceof Uint8Array ? body.length : 0;
}
