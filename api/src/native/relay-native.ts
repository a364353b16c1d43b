import type { FastifyReply } from 'fastify';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import { AppError } from '../../../shared/src/errors/app-error.ts';
import type { NativeUsage } from '../../../shared/src/native/native-usage.ts';
import { observed, type UsageAccumulator } from '../../../shared/src/native/stream/usage-accumulator.ts';
import { observeTimeToFirstToken } from '../../../shared/src/observability/http-metrics.ts';
import { classifyTransportError } from '../../../shared/src/upstream/upstream-client.ts';
import type { AdmissionContext } from '../admission/admission-context.ts';
import { pumpedBody } from '../streaming/pumped-body.ts';
import type { NativeAnswer, NativeRejection } from './forward-native.ts';
import type { NativeDeps } from './native-deps.ts';
import { costHeaderValue, costOf, SERVICE_COST_HEADER, settleNative } from './settle-native.ts';

/** What a native answer is relayed with: the call it answers and how to read its usage. */
export interface NativeRelay {
  readonly deps: Pick<NativeDeps, 'billing'>;
  readonly admission: AdmissionContext;
  readonly model: CatalogueModel;
  /** Upstream response headers passed to the client besides `content-type` (lower case). */
  readonly forwardHeaders?: readonly string[];
}

/** A provider's own refusal, passed through in its format (nothing is charged). */
export function sendRejection(reply: FastifyReply, rejection: NativeRejection): FastifyReply {
  return reply.code(rejection.status).header('content-type', rejection.contentType).send(rejection.body);
}

/**
 * A whole (non-streamed) answer: read, its usage priced and charged once, then sent byte for byte
 * with its status and content type and the cost in `X-Service-Cost`. `usageOf` reads the usage
 * from the answer's bytes; `undefined` when it reports none (then nothing is charged, and the
 * answer is logged).
 */
export async function sendWholeAnswer(
  reply: FastifyReply,
  relay: NativeRelay,
  answer: NativeAnswer,
  usageOf: (body: Buffer) => NativeUsage | undefined,
  { free = false }: { free?: boolean } = {},
): Promise<FastifyReply> {
  let body: Buffer;
  try {
    body = Buffer.from(await answer.response.body.arrayBuffer());
  } catch (err) {
    // The provider broke off its answer (or the client left): nothing is charged.
    throw new AppError(502, 'upstream_error', 'upstream_error', 'The provider broke off its answer.', {
      cause: classifyTransportError(err),
    });
  }
  copyHeaders(reply, relay, answer);
  // A free endpoint (token counting) is passed back as it is: nothing held, nothing charged.
  if (free) return reply.code(answer.response.status).send(body);
  const usage = parsedUsage(usageOf, body);
  if (usage === undefined) {
    reply.request.log.error({ provider: answer.target.route.provider }, 'a native answer reported no usage');
    return reply.code(answer.response.status).send(body);
  }
  const costMicros = costOf(relay.model, usage);
  const provider = answer.target.route.provider;
  await settleNative(relay.deps, relay.admission, relay.model, costMicros, usage, provider);
  return reply
    .code(answer.response.status)
    .header(SERVICE_COST_HEADER, costHeaderValue(costMicros))
    .send(body);
}

/**
 * A streamed answer: each chunk goes to the client unchanged and at once while `accumulator`
 * watches for the usage. The stream ending with the protocol's final event is charged that usage,
 * its cost sent as the `X-Service-Cost` trailer. An upstream failure mid-stream is not charged
 * (the hold is released) and breaks the client's connection off (no clean end of a cut answer);
 * when the client goes away, the usage reported so far is charged.
 */
export function sendStream(
  reply: FastifyReply,
  relay: NativeRelay,
  answer: NativeAnswer,
  accumulator: UsageAccumulator<NativeUsage>,
  signal: AbortSignal,
): FastifyReply {
  let costText = '';
  copyHeaders(reply, relay, answer);
  reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no');
  reply.trailer(SERVICE_COST_HEADER, async () => costText);
  async function* chunks(): AsyncGenerator<Uint8Array> {
    let ended: 'completed' | 'failed' = 'failed';
    try {
      let first = true;
      for await (const chunk of observed(answer.response.body, accumulator)) {
        if (first) {
          first = false;
          observeTimeToFirstToken(relay.model.id, reply.elapsedTime / 1000);
        }
        yield chunk;
      }
      ended = 'completed';
    } catch (err) {
      if (signal.aborted) return;
      reply.request.log.warn({ err }, 'a native stream broke off; nothing is charged');
      // The client's connection is broken off too: ending the answer cleanly would present a cut
      // answer (audio bytes, or events without the protocol's last one) as a whole one.
      throw new Error('the provider broke the stream off', { cause: err });
    } finally {
      const seen = accumulator.finish();
      const charge = seen.usage !== undefined && ((ended === 'completed' && seen.complete) || signal.aborted);
      if (charge && seen.usage !== undefined) {
        const costMicros = costOf(relay.model, seen.usage);
        const provider = answer.target.route.provider;
        await settleNative(relay.deps, relay.admission, relay.model, costMicros, seen.usage, provider);
        costText = costHeaderValue(costMicros);
      } else if (ended === 'completed' && !seen.complete) {
        reply.request.log.warn({ problem: seen.problem }, 'a native stream ended without its final event');
      }
    }
  }
  return reply.code(answer.response.status).send(pumpedBody(chunks()));
}

/** The usage of a whole answer; an answer that is not what its protocol says is the provider's 502. */
function parsedUsage(
  usageOf: (body: Buffer) => NativeUsage | undefined,
  body: Buffer,
): NativeUsage | undefined {
  try {
    return usageOf(body);
  } catch {
    throw new AppError(
      502,
      'upstream_error',
      'upstream_error',
      'The provider answered in an unexpected shape.',
    );
  }
}

function copyHeaders(reply: FastifyReply, relay: NativeRelay, answer: NativeAnswer): void {
  const headers = answer.response.headers;
  for (const name of ['content-type', ...(relay.forwardHeaders ?? [])]) {
    const value = headers[name];
    if (typeof value === 'string') reply.header(name, value);
  }
}
