/**
 * A fake Gemini API for media on a real HTTP server, speaking its documented wire format:
 * `POST /v1beta/models/{imagen…}:predict` (Imagen), `POST /v1beta/models/{gemini…image…}:generateContent`
 * (Gemini image models), `POST /v1beta/models/{veo…}:predictLongRunning`, `GET /v1beta/{operation
 * name}` and `GET /v1beta/files/{id}:download?alt=media` (the MP4). Answers: google-media-answers.ts
 * and google-media-operations.ts (triggers `[filtered]`, `[filter-one]`, `[fail]`).
 *
 * Auth as Google does it, on every route including the download: the key from `x-goog-api-key` or
 * the `key` query parameter; none gives 403 PERMISSION_DENIED, a wrong one 400 INVALID_ARGUMENT
 * with reason API_KEY_INVALID. A model id starting with `missing` gives 404 NOT_FOUND. Scripted
 * statuses answer Google's error body (`{error: {code, message, status}}`; 429 with Retry-After
 * and RetryInfo); other behaviours as in media-fake-kit.ts.
 */
import { type RecordedRequest, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { BehaviourScript } from './fake-behaviour.ts';
import { authError, statusError } from './google-errors.ts';
import { errorBody, geminiImageAnswer, imagenAnswer, invalidArgument } from './google-media-answers.ts';
import { FakeVeoOperations, type VeoFakeOptions } from './google-media-operations.ts';
import { answerScripted, header, json, jsonOf, type MediaReply } from './media-fake-kit.ts';

export interface GoogleMediaUpstreamOptions extends VeoFakeOptions {
  /** The key the fake accepts (default `test-gemini-key`). */
  apiKey?: string;
}

export interface GoogleMediaUpstream {
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly script: BehaviourScript;
  close(): Promise<void>;
}

export function statusReply(status: number, retryAfterSeconds?: number): MediaReply {
  const answer = statusError(status, retryAfterSeconds);
  return json(answer.body, answer.status, answer.headers);
}

function authReply(request: RecordedRequest, query: URLSearchParams, apiKey: string): MediaReply | undefined {
  const denied = authError(header(request, 'x-goog-api-key') ?? query.get('key') ?? undefined, apiKey);
  return denied === undefined ? undefined : json(denied.body, denied.status);
}

const MODEL_METHOD = /^\/v1beta\/models\/([^/:]+):(predict|predictLongRunning|generateContent)$/;
const OPERATION = /^\/v1beta\/((?:models\/[^/]+\/)?operations\/[^/]+)$/;
const FILE_DOWNLOAD = /^\/v1beta\/files\/([^/:]+):download$/;

function postRoute(request: RecordedRequest, path: string, operations: FakeVeoOperations): MediaReply {
  const route = MODEL_METHOD.exec(path);
  const model = decodeURIComponent(route?.[1] ?? '');
  if (!route || model.startsWith('missing')) {
    return json(errorBody(404, 'NOT_FOUND', `models/${model} is not found for API version v1beta.`), 404);
  }
  const body = jsonOf(request);
  if (!body) return invalidArgument('Invalid JSON payload received.');
  if (route[2] === 'predict' && model.startsWith('imagen')) return imagenAnswer(body, model);
  if (route[2] === 'generateContent' && model.includes('image')) return geminiImageAnswer(body);
  if (route[2] === 'predictLongRunning' && model.startsWith('veo')) return operations.submit(body, model);
  return invalidArgument(`models/${model} does not support ${route[2]}.`);
}

function route(request: RecordedRequest, url: URL, operations: FakeVeoOperations): MediaReply {
  if (request.method === 'POST') return postRoute(request, url.pathname, operations);
  const operation = OPERATION.exec(url.pathname);
  if (request.method === 'GET' && operation?.[1]) return operations.poll(operation[1], url.origin);
  const file = FILE_DOWNLOAD.exec(url.pathname);
  if (request.method === 'GET' && file?.[1]) {
    if (url.searchParams.get('alt') !== 'media') return invalidArgument('Download requires alt=media.');
    return operations.download(file[1]);
  }
  return json(errorBody(404, 'NOT_FOUND', `${request.method} ${url.pathname} is not found.`), 404);
}

/** Starts a fake Gemini media API on 127.0.0.1 and a free port. */
export async function startGoogleMediaUpstream(
  options: GoogleMediaUpstreamOptions = {},
): Promise<GoogleMediaUpstream> {
  const script = new BehaviourScript();
  const apiKey = options.apiKey ?? 'test-gemini-key';
  const operations = new FakeVeoOperations(options);
  const upstream = await startFakeUpstream(async (request, res) => {
    const behaviour = script.take();
    const url = new URL(request.url, `http://${request.headers.host ?? '127.0.0.1'}`);
    const denied = authReply(request, url.searchParams, apiKey);
    await answerScripted(res, behaviour, denied, statusReply, () => route(request, url, operations));
  });
  return { url: upstream.url, requests: upstream.requests, script, close: () => upstream.close() };
}
