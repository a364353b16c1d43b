import type { FastifyReply } from 'fastify';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import { AppError, errors } from '../../../shared/src/errors/app-error.ts';
import type { NativeUsage } from '../../../shared/src/native/native-usage.ts';
import { classifyTransportError } from '../../../shared/src/upstream/upstream-client.ts';
import type { AdmissionContext } from '../admission/admission-context.ts';
import { answerSignal } from '../streaming/answer-signal.ts';
import { pumpedBody } from '../streaming/pumped-body.ts';
import { StreamCallSignal } from '../streaming/stream-call-signal.ts';
import type { NativeAnswer, NativeRejection } from './forward-native.ts';
import type { NativeDeps } from './native-deps.ts';
import { type NativeStream, relayNativeStream } from './native-stream-relay.ts';
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
    const failure = classifyTransportError(err);
    // The client left, or the api stops (answered 503 then): nothing is charged.
    if (failure.failure === 'aborted') throw errors.clientClosedRequest();
    // The provider broke off its answer: nothing is charged.
    throw new AppError(502, 'upstream_error', 'upstream_error', 'The provider broke off its answer.', {
      cause: failure,
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
 * A streamed answer (native-stream-relay.ts): each chunk goes to the client unchanged and at once
 * while `stream` watches it; the usage it is charged (once) is priced here, its cost sent as the
 * `X-Service-Cost` trailer of a stream that ended whole.
 */
export function sendStream(
  reply: FastifyReply,
  relay: NativeRelay,
  answer: NativeAnswer,
  stream: NativeStream,
): FastifyReply {
  let costText = '';
  copyHeaders(reply, relay, answer);
  reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no');
  reply.trailer(SERVICE_COST_HEADER, async () => costText);
  const billing = {
    model: relay.model,
    charge: async (usage: NativeUsage) => {
      const costMicros = costOf(relay.model, usage);
      const provider = answer.target.route.provider;
      await settleNative(relay.deps, relay.admission, relay.model, costMicros, usage, provider);
      costText = costHeaderValue(costMicros);
    },
  };
  return reply
    .code(answer.response.status)
    .send(pumpedBody(relayNativeStream(reply, answer, stream, billing)));
}

/**
 * The call of a native request: cancelled when its client leaves or the api stops; a stream whose
 * client leaves after output is read on for `STREAM_DRAIN_MS` first (StreamCallSignal).
 */
export function nativeCall(reply: FastifyReply, deps: Pick<NativeDeps, 'config'>): StreamCallSignal {
  return new StreamCallSignal({
    answer: answerSignal(reply),
    stopping: reply.server.stopping,
    drainMs: deps.config.streamDrainMs,
  });
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
