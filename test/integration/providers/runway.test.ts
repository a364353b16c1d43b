import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UnsupportedFeatureError, type UpstreamTarget } from '../../../shared/src/providers/chat-types.ts';
import type { VideoPollState, VideoRequest } from '../../../shared/src/providers/media-types.ts';
import { runwayMediaAdapter } from '../../../shared/src/providers/runway/index.ts';
import { type RunwayUpstream, startRunwayUpstream } from '../../fakes/runway-upstream.ts';
import { bodyBytes, capability, sendMediaRequest } from '../../helpers/send-media-request.ts';

const { errorMessage, isCredentialRejection } = runwayMediaAdapter;
const video = capability(runwayMediaAdapter.video, 'video');

const KEY = 'key_test_runway_integration';
let upstream: RunwayUpstream;
beforeAll(async () => {
  upstream = await startRunwayUpstream({ apiKey: KEY, pollsUntilDone: 3 });
});
afterAll(async () => {
  await upstream.close();
});
beforeEach(() => {
  upstream.script.reset();
});

const target = (nativeModel = 'veo3.1', apiKey = KEY): UpstreamTarget => ({
  baseUrl: upstream.url,
  apiKey,
  nativeModel,
});

async function submit(request: VideoRequest, model?: string): Promise<string> {
  const response = await sendMediaRequest(video.submit(request, target(model)));
  expect(response.status).toBe(200);
  return video.submitted(await response.json()).operationId;
}

async function pollUntilSettled(taskId: string): Promise<VideoPollState[]> {
  const states: VideoPollState[] = [];
  for (let i = 0; i < 10; i += 1) {
    const response = await sendMediaRequest(video.poll(taskId, target()));
    expect(response.status).toBe(200);
    const state = video.polled(await response.json());
    states.push(state);
    if (state.state !== 'running') return states;
  }
  throw new Error('the task never settled');
}

describe('Runway video against the fake API', () => {
  it('submits text_to_video, polls the task to SUCCEEDED and downloads the signed MP4 without the key', async () => {
    const taskId = await submit({
      prompt: 'A fox in the snow',
      duration: 6,
      aspect_ratio: '9:16',
      resolution: '1080p',
    });
    expect(JSON.parse(upstream.requests.at(-1)?.body.toString('utf8') ?? '{}')).toEqual({
      model: 'veo3.1',
      promptText: 'A fox in the snow',
      ratio: '1080:1920',
      duration: 6,
    });
    const states = await pollUntilSettled(taskId);
    expect(states.slice(0, 3)).toEqual([
      { state: 'running', progress: null },
      { state: 'running', progress: 33 },
      { state: 'running', progress: 67 },
    ]);
    const done = states.at(-1);
    if (done?.state !== 'succeeded') throw new Error(`expected success, got ${JSON.stringify(done)}`);
    const response = await sendMediaRequest(video.download(done.downloadUrl, target()));
    expect(response.status).toBe(200);
    const mp4 = await bodyBytes(response);
    expect(mp4.toString('latin1', 4, 8)).toBe('ftyp');
    expect(upstream.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  it('reports failed and moderated tasks as failed', async () => {
    const failed = await pollUntilSettled(await submit({ prompt: 'A fox [fail]', duration: 8 }));
    expect(failed.at(-1)).toEqual({
      state: 'failed',
      message: 'Runway: An unexpected error occurred. (INTERNAL)',
    });
    const moderated = await pollUntilSettled(await submit({ prompt: 'A fox [moderation]', duration: 8 }));
    expect(moderated.at(-1)).toEqual({
      state: 'failed',
      message: 'Runway: The text prompt was flagged by content moderation. (SAFETY.INPUT.TEXT)',
    });
  });

  it('refuses image-to-video models before calling Runway', () => {
    const before = upstream.requests.length;
    expect(() => video.submit({ prompt: 'A fox', duration: 5 }, target('gen4_turbo'))).toThrow(
      UnsupportedFeatureError,
    );
    expect(upstream.requests.length).toBe(before);
  });
});

describe('Runway errors over HTTP', () => {
  it('refuses a wrong key with 401, a credential rejection, and a missing version header with 400', async () => {
    const response = await sendMediaRequest(
      video.submit({ prompt: 'A fox', duration: 8 }, target('veo3.1', 'key_wrong')),
    );
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(errorMessage(401, text)).toBe('Runway HTTP 401 invalid API key: Invalid API key.');
    expect(isCredentialRejection?.(401, text)).toBe(true);
    const request = video.poll('00000000-0000-4000-8000-000000000000', target());
    const { 'x-runway-version': _, ...withoutVersion } = request.headers;
    const unversioned = await fetch(request.url, { headers: withoutVersion });
    expect(unversioned.status).toBe(400);
    expect(errorMessage(400, await unversioned.text())).toBe(
      'Runway HTTP 400 invalid request: The X-Runway-Version header is required.',
    );
  });

  it('reads Runway validation issues and unknown tasks', async () => {
    const response = await sendMediaRequest(video.submit({ prompt: 'A fox', duration: 7 }, target('gen5')));
    expect(response.status).toBe(400);
    expect(errorMessage(400, await response.text())).toMatch(
      /^Runway HTTP 400 invalid request: Validation of body failed \(model: /,
    );
    const unknown = await sendMediaRequest(video.poll('00000000-0000-4000-8000-000000000000', target()));
    expect(unknown.status).toBe(404);
    expect(errorMessage(404, await unknown.text())).toBe('Runway HTTP 404 not found: Task not found');
  });

  it('answers scripted statuses with Runway bodies', async () => {
    upstream.script.next({ kind: 'status', status: 429, retryAfterSeconds: 5 });
    const limited = await sendMediaRequest(video.submit({ prompt: 'A fox', duration: 8 }, target()));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('5');
    expect(errorMessage(429, await limited.text())).toMatch(
      /^Runway HTTP 429 rate limited: You have exceeded/,
    );
    upstream.script.next({ kind: 'status', status: 503 });
    const busy = await sendMediaRequest(video.poll('00000000-0000-4000-8000-000000000000', target()));
    expect(errorMessage(503, await busy.text())).toBe(
      'Runway HTTP 503 shedding load: The service is temporarily shedding load. Please retry.',
    );
  });

  it('refuses a tampered output signature', async () => {
    const done = (await pollUntilSettled(await submit({ prompt: 'A hare', duration: 8 }))).at(-1);
    if (done?.state !== 'succeeded') throw new Error('expected success');
    const tampered = done.downloadUrl.replace(/_jwt=\w+/, '_jwt=forged');
    expect((await sendMediaRequest(video.download(tampered, target()))).status).toBe(403);
  });
});
