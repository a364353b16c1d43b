import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ResolvedKey } from '../../../shared/src/accounts/key-cache.ts';
import { newRequestDraft, type RequestDraft } from '../../../shared/src/request-log/request-draft.ts';
import type { RequestLogWriter } from '../../../shared/src/request-log/request-log-writer.ts';
import type { RequestOutcome } from '../../../shared/src/request-log/request-record.ts';
import { requestIdMs } from '../../../shared/src/request-log/request-record.ts';

/** The request log's side of one request: its draft, its key, and whether its record went. */
export interface Capture {
  readonly writer: RequestLogWriter;
  readonly key: ResolvedKey;
  readonly draft: RequestDraft;
  /** The answer is a stream: its record is written when the stream ends, not when the socket closes. */
  streaming: boolean;
  /** That stream (a client gone mid-way: the record waits for the relay to end, having charged). */
  payload: Readable | null;
  written: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The request's log record in the making (`draft`) and what ends it, once its key passed
     * check 2 (docs/request-log.md); on the request, decorated, rather than in a WeakMap.
     */
    requestCapture?: Capture | undefined;
  }
}

/** nginx's status for a client that left before its answer's status was sent. */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * Starts the record of a request whose key passed check 2 (called by authentication, before any
 * later check can refuse it). A request without a valid key gets none: nobody can fill a stranger's
 * log. A client that leaves before its answer ends gets its record then, `client_gone`.
 */
export function startRequestRecord(
  writer: RequestLogWriter,
  request: FastifyRequest,
  reply: FastifyReply,
  key: ResolvedKey,
): void {
  const draft = newRequestDraft();
  const capture: Capture = { writer, key, draft, streaming: false, payload: null, written: false };
  request.requestCapture = capture;
  // `on`, not `once`: 'close' comes once, and `once` wraps the listener for nothing.
  reply.raw.on('close', () => {
    if (reply.raw.writableFinished) return; // onResponse writes it.
    const payload = capture.payload;
    if (payload !== null && !payload.closed)
      payload.once('close', () => finish(request, reply, 'client_gone'));
    else finish(request, reply, 'client_gone');
  });
}

/**
 * The hooks that end records, for the plugin whose routes authenticate: the answer finished
 * (`onResponse`), or its stream closed before its end (the client left: the relay has charged
 * what it was told of by then). The route attempts (`firstSuccessfulRoute`, `forwardNative`)
 * are handed the draft with the request's admission and note the provider on it.
 */
export function registerRequestCapture(app: FastifyInstance): void {
  // In every request's shape from its start (no property added to a live request on the hot path).
  app.decorateRequest('requestCapture', undefined);
  app.addHook('onSend', (request, reply, payload, done) => {
    const capture = request.requestCapture;
    if (capture !== undefined && payload instanceof Readable) {
      capture.streaming = true;
      capture.payload = payload;
      timeFirstWrite(reply, capture.draft);
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.requestCapture !== undefined) finish(request, reply, 'completed');
    done();
  });
}

/** A streamed answer's time to its first byte of output (its first body write after the head). */
function timeFirstWrite(reply: FastifyReply, draft: RequestDraft): void {
  const raw = reply.raw;
  const write = raw.write;
  raw.write = function firstWrite(this: typeof raw, ...args: Parameters<typeof write>) {
    raw.write = write;
    draft.ttftMs = Math.round(performance.now() - draft.startedAt);
    return write.apply(this, args);
  } as typeof write;
}

function finish(request: FastifyRequest, reply: FastifyReply, ended: 'completed' | 'client_gone'): void {
  const capture = request.requestCapture;
  if (capture === undefined || capture.written) return;
  capture.written = true;
  const { draft, key } = capture;
  const status = ended === 'client_gone' && !reply.raw.headersSent ? CLIENT_CLOSED_REQUEST : reply.statusCode;
  const outcome: RequestOutcome =
    ended === 'client_gone'
      ? 'client_gone'
      : draft.failedAfterStatus || status >= 400
        ? 'failed'
        : 'completed';
  const stream = capture.streaming && isEventStream(reply);
  const url = request.url;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  capture.writer.record({
    id: request.id,
    createdMs: requestIdMs(request.id) ?? Date.now(),
    accountId: key.accountId,
    keyId: key.id,
    keyLast4: key.last4,
    method: request.method,
    path,
    endpoint: endpointOf(path),
    model: draft.model ?? request.admission?.model ?? null,
    provider: draft.provider,
    channelId: draft.channelId,
    attempts: draft.attempts,
    status,
    errorCode:
      draft.errorCode ??
      (ended === 'client_gone' && status === CLIENT_CLOSED_REQUEST ? 'client_closed_request' : null),
    outcome,
    stream,
    inputTokens: draft.inputTokens,
    outputTokens: draft.outputTokens,
    cachedTokens: draft.cachedTokens,
    reasoningTokens: draft.reasoningTokens,
    costMicros: draft.costMicros,
    latencyMs: Math.round(performance.now() - draft.startedAt),
    ttftMs: stream ? draft.ttftMs : null,
    ip: request.ip ?? null,
    jobId: draft.jobId,
  });
}

function isEventStream(reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && type.startsWith('text/event-stream');
}

const V1_ENDPOINTS: ReadonlyArray<readonly [string, string]> = [
  ['/v1/chat/completions', 'chat'],
  ['/v1/embeddings', 'embeddings'],
  ['/v1/images/', 'images'],
  ['/v1/audio/speech', 'speech'],
  ['/v1/audio/transcriptions', 'transcription'],
  ['/v1/videos', 'video'],
  ['/v1/balance', 'balance'],
  ['/v1/usage', 'usage'],
  ['/v1/requests', 'requests'],
];

/**
 * The record's `endpoint`, from the request's path (its route's first segments are never
 * parameters): what a `/v1` route does, or `native:<prefix>` for a native API.
 */
export function endpointOf(route: string): string {
  if (route.startsWith('/v1/')) {
    for (const [prefix, endpoint] of V1_ENDPOINTS) if (route.startsWith(prefix)) return endpoint;
    return route.slice(4).split('/')[0] ?? 'v1';
  }
  const end = route.indexOf('/', 1);
  return `native:${route.slice(1, end === -1 ? route.length : end)}`;
}
