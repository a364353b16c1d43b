/**
 * A fake Runway API on a real HTTP server, speaking its documented wire format:
 * `POST /v1/text_to_video`, `GET /v1/tasks/{id}`, and the task's signed output URL served by the
 * same server (see runway-fake-tasks.ts for validation, task progress and the triggers `[fail]`
 * and `[moderation]`).
 *
 * Auth as Runway does it on `/v1`: `Authorization: Bearer <key>` (missing or wrong: 401
 * `{error}`) and `X-Runway-Version: 2024-11-06` (missing or another value: 400 `{error}`). The
 * output URL needs no key (a signed URL) and refuses a wrong signature with 403. Scripted statuses
 * answer `{error: "…"}` as in Runway's error matrix (429 with Retry-After when scripted); other
 * behaviours as in media-fake-kit.ts.
 */
import { type RecordedRequest, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { BehaviourScript } from './fake-behaviour.ts';
import { answerScripted, header, json, jsonOf, type MediaReply, writeReply } from './media-fake-kit.ts';
import { FakeRunwayTasks, type RunwayTaskOptions, runwayError } from './runway-fake-tasks.ts';

export const RUNWAY_VERSION = '2024-11-06';

/** The key the fake accepts unless told otherwise. */
export const RUNWAY_FAKE_KEY = 'key_test_runway';

export interface RunwayUpstreamOptions extends RunwayTaskOptions {
  /** The key the fake accepts (default `key_test_runway`). */
  apiKey?: string;
}

export interface RunwayUpstream {
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly script: BehaviourScript;
  close(): Promise<void>;
}

const STATUS_ERRORS: Readonly<Record<number, string>> = {
  400: 'Invalid request.',
  401: 'Invalid API key.',
  404: 'Not found.',
  429: 'You have exceeded the rate limit for your integration. Please try again later.',
  500: 'An unexpected error occurred.',
  502: 'The service is temporarily shedding load. Please retry.',
  503: 'The service is temporarily shedding load. Please retry.',
  504: 'The service is overloaded and could not satisfy the request.',
};

export function statusReply(status: number, retryAfterSeconds?: number): MediaReply {
  const reply = runwayError(status, STATUS_ERRORS[status] ?? `Request failed (HTTP ${status}).`);
  return retryAfterSeconds === undefined
    ? reply
    : { ...reply, headers: { 'retry-after': String(retryAfterSeconds) } };
}

function authReply(request: RecordedRequest, apiKey: string): MediaReply | undefined {
  const authorization = header(request, 'authorization') ?? '';
  if (authorization !== `Bearer ${apiKey}`) return runwayError(401, 'Invalid API key.');
  const version = header(request, 'x-runway-version');
  if (version === undefined) return runwayError(400, 'The X-Runway-Version header is required.');
  if (version !== RUNWAY_VERSION) return runwayError(400, `Unsupported API version: ${version}.`);
  return undefined;
}

function route(request: RecordedRequest, url: URL, tasks: FakeRunwayTasks): MediaReply {
  if (request.method === 'POST' && url.pathname === '/v1/text_to_video') {
    const body = jsonOf(request);
    return body ? tasks.create(body) : runwayError(400, 'Request body must be JSON.');
  }
  // Get organization info: the credit balance and tier of the key's organization.
  if (request.method === 'GET' && url.pathname === '/v1/organization') {
    return json({
      creditBalance: 10_000,
      tier: { maxMonthlyCreditSpend: 100_000, models: {} },
      usage: { models: {} },
    });
  }
  const task = /^\/v1\/tasks\/([^/]+)$/.exec(url.pathname);
  if (request.method === 'GET' && task?.[1]) return tasks.retrieve(decodeURIComponent(task[1]), url.origin);
  return runwayError(404, `Cannot ${request.method} ${url.pathname}`);
}

/** Starts a fake Runway API on 127.0.0.1 and a free port. */
export async function startRunwayUpstream(options: RunwayUpstreamOptions = {}): Promise<RunwayUpstream> {
  const script = new BehaviourScript();
  const apiKey = options.apiKey ?? RUNWAY_FAKE_KEY;
  const tasks = new FakeRunwayTasks(options);
  const upstream = await startFakeUpstream(async (request, res) => {
    const behaviour = script.take();
    const url = new URL(request.url, `http://${request.headers.host ?? '127.0.0.1'}`);
    const output = /^\/outputs\/([^/]+)\.mp4$/.exec(url.pathname);
    if (request.method === 'GET' && output?.[1]) {
      return writeReply(
        res,
        tasks.output(output[1], url.searchParams.get('_jwt')),
        behaviour,
        statusReply(500),
      );
    }
    const denied = authReply(request, apiKey);
    await answerScripted(res, behaviour, denied, statusReply, () => route(request, url, tasks));
  });
  return { url: upstream.url, requests: upstream.requests, script, close: () => upstream.close() };
}
