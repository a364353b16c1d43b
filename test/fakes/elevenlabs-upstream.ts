/**
 * A fake ElevenLabs API on a real HTTP server, speaking its documented wire format:
 * `POST /v1/text-to-speech/{voice_id}?output_format=mp3_44100_128` (JSON in, `audio/mpeg` out),
 * its `/stream` variant (the same audio, sent in several chunks without a length),
 * `POST /v1/sound-generation?output_format=…` (JSON in, audio out) and `POST /v1/speech-to-text`
 * (multipart in, parsed with the web `Request.formData()`; JSON out). Answers:
 * elevenlabs-fake-answers.ts. A voice id that is not 20 letters and digits, or
 * starts with `missing`, gives 400 `voice_not_found`; a model id starting with `missing` gives
 * 400 `model_not_found`.
 *
 * Auth as ElevenLabs does it: the key in `xi-api-key`; none gives 401 `needs_authorization`, a
 * wrong one 401 `invalid_api_key`. Scripted statuses answer ElevenLabs' `{detail: {status,
 * message}}` bodies (401 `quota_exceeded`, 429 `too_many_concurrent_requests` with Retry-After
 * when scripted, 503 `system_busy`, 422 a FastAPI list); other behaviours as in media-fake-kit.ts,
 * except that `fail-mid-stream` with `disconnect` cuts a transcript (JSON) mid-body too.
 */
import type { ServerResponse } from 'node:http';
import { type RecordedRequest, startFakeUpstream } from '../helpers/fake-upstream.ts';
import {
  detailError,
  soundAnswer,
  speechAnswer,
  transcriptionAnswer,
  validationError,
} from './elevenlabs-fake-answers.ts';
import { BehaviourScript, type FakeBehaviour } from './fake-behaviour.ts';
import {
  answerScripted,
  formOf,
  header,
  json,
  jsonOf,
  type MediaReply,
  writeReply,
} from './media-fake-kit.ts';

/** Pieces a `/stream` answer is sent in. */
const STREAM_CHUNKS = 4;

export interface ElevenLabsUpstreamOptions {
  /** The key the fake accepts (default `test-elevenlabs-key`). */
  apiKey?: string;
}

export interface ElevenLabsUpstream {
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly script: BehaviourScript;
  close(): Promise<void>;
}

export function statusReply(status: number, retryAfterSeconds?: number): MediaReply {
  switch (status) {
    case 401:
      return detailError(
        401,
        'quota_exceeded',
        'This request exceeds your quota of 10000. You have 12 credits remaining, while 628 credits are required for this request.',
      );
    case 422:
      return validationError(['body', 'text'], 'Field required', 'missing');
    case 429: {
      const reply = detailError(
        429,
        'too_many_concurrent_requests',
        'Too many concurrent requests. Your current subscription is associated with a maximum of 5 concurrent requests.',
      );
      return retryAfterSeconds === undefined
        ? reply
        : { ...reply, headers: { 'retry-after': String(retryAfterSeconds) } };
    }
    case 503:
      return detailError(
        503,
        'system_busy',
        'Our services are experiencing high levels of traffic. Please try again.',
      );
    default:
      return status >= 500
        ? detailError(status, 'internal_server_error', 'An internal server error occurred.')
        : detailError(status, 'invalid_request', `The request was rejected (HTTP ${status}).`);
  }
}

function authReply(request: RecordedRequest, apiKey: string): MediaReply | undefined {
  const key = header(request, 'xi-api-key');
  if (key === undefined || key === '') {
    return detailError(
      401,
      'needs_authorization',
      'Neither authorization header nor xi-api-key received, please provide one.',
    );
  }
  return key === apiKey ? undefined : detailError(401, 'invalid_api_key', 'Invalid API key');
}

async function route(request: RecordedRequest, url: URL): Promise<MediaReply> {
  const speech = /^\/v1\/text-to-speech\/([^/]+)(?:\/stream)?$/.exec(url.pathname);
  const format = url.searchParams.get('output_format');
  if (request.method === 'POST' && speech?.[1]) {
    const body = jsonOf(request);
    if (!body) return validationError(['body'], 'JSON decode error', 'json_invalid');
    return speechAnswer(decodeURIComponent(speech[1]), format, body);
  }
  // Get user info (the key's subscription and its character quota).
  if (request.method === 'GET' && url.pathname === '/v1/user') {
    return json({
      user_id: 'fake-user',
      subscription: { tier: 'creator', character_count: 0, character_limit: 100_000, status: 'active' },
      is_new_user: false,
    });
  }
  if (request.method === 'POST' && url.pathname === '/v1/sound-generation') {
    const body = jsonOf(request);
    if (!body) return validationError(['body'], 'JSON decode error', 'json_invalid');
    return soundAnswer(format, body);
  }
  if (request.method === 'POST' && url.pathname === '/v1/speech-to-text') {
    const form = await formOf(request);
    if (!form) return validationError(['body', 'model_id'], 'Field required', 'missing');
    return transcriptionAnswer(form);
  }
  return json({ detail: 'Not Found' }, 404);
}

/** A binary answer sent in STREAM_CHUNKS writes with chunked transfer encoding, as `/stream` answers. */
async function writeChunked(
  res: ServerResponse,
  reply: Extract<MediaReply, { kind: 'bytes' }>,
): Promise<void> {
  res.writeHead(reply.status, { 'content-type': reply.contentType, ...reply.headers });
  const size = Math.ceil(reply.body.length / STREAM_CHUNKS);
  for (let at = 0; at < reply.body.length; at += size) {
    await new Promise<void>((resolve) => res.write(reply.body.subarray(at, at + size), () => resolve()));
  }
  res.end();
}

/** A transcript cut mid-body when the behaviour says so: as a binary answer, which the kit cuts after half its bytes. */
function cutTranscript(behaviour: FakeBehaviour, reply: MediaReply): MediaReply {
  const cut = behaviour.kind === 'fail-mid-stream' && behaviour.mode === 'disconnect';
  if (!cut || reply.kind !== 'json' || reply.status !== 200) return reply;
  return {
    kind: 'bytes',
    status: 200,
    contentType: 'application/json',
    body: Buffer.from(JSON.stringify(reply.body)),
  };
}

/** Starts a fake ElevenLabs API on 127.0.0.1 and a free port. */
export async function startElevenLabsUpstream(
  options: ElevenLabsUpstreamOptions = {},
): Promise<ElevenLabsUpstream> {
  const script = new BehaviourScript();
  const apiKey = options.apiKey ?? 'test-elevenlabs-key';
  const upstream = await startFakeUpstream(async (request, res) => {
    const behaviour = script.take();
    const denied = authReply(request, apiKey);
    const url = new URL(request.url, 'http://fake.invalid');
    if (denied === undefined && behaviour.kind === 'ok' && url.pathname.endsWith('/stream')) {
      const reply = await route(request, url);
      if (reply.kind === 'bytes' && reply.status === 200) return writeChunked(res, reply);
      return writeReply(res, reply, behaviour, statusReply(500));
    }
    await answerScripted(res, behaviour, denied, statusReply, async () =>
      cutTranscript(behaviour, await route(request, url)),
    );
  });
  return { url: upstream.url, requests: upstream.requests, script, close: () => upstream.close() };
}
