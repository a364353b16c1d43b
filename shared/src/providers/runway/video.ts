/**
 * Runway video generation as the gateway's VideoAdapter, a task submitted then polled, per
 * https://docs.dev.runwayml.com/api (runwayml/sdk-node `TextToVideo`, `Tasks`):
 * 1. submit: `POST {base}/v1/text_to_video` `{model, promptText, ratio, duration}` → `{id}`;
 * 2. poll: `GET {base}/v1/tasks/{id}` → `{id, createdAt, status: PENDING | THROTTLED | RUNNING |
 *    SUCCEEDED | FAILED | CANCELLED, progress? (0 to 1, while RUNNING), output? (URLs, on
 *    SUCCEEDED; they expire in 24 to 48 hours), failure?, failureCode?}`;
 * 3. download: `GET {output[0]}`, a signed URL: no Authorization header (the key must not travel
 *    to the storage host).
 *
 * Decisions: progress is reported 0 to 100 (the gateway's scale; Runway's 0..1 times 100, null
 * before the task runs). FAILED carries Runway's human-readable `failure` (scrubbed) and its
 * `failureCode`; CANCELLED is a failure too. See video-models.ts for what each model accepts.
 */
import { z } from 'zod';
import { sanitizeUpstreamText } from '../../upstream/upstream-text.ts';
import type { UpstreamTarget } from '../chat-types.ts';
import { UpstreamProtocolError } from '../chat-types.ts';
import type { MediaHttpRequest, VideoAdapter, VideoPollState, VideoRequest } from '../media-types.ts';
import { runwayHeaders, runwayUrl } from './api.ts';
import { toTextToVideoBody } from './video-models.ts';

const TASK_ID = /^[A-Za-z0-9-]{1,64}$/;

const submittedSchema = z.object({ id: z.string().regex(TASK_ID) });

export const taskSchema = z.object({
  id: z.string(),
  status: z.enum(['PENDING', 'THROTTLED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED']),
  progress: z.number().min(0).max(1).nullish(),
  output: z.array(z.string().min(1)).nullish(),
  failure: z.string().nullish(),
  failureCode: z.string().nullish(),
});

type Task = z.infer<typeof taskSchema>;

function failureMessage(task: Task): string {
  const failure = task.failure ? sanitizeUpstreamText(task.failure) : '';
  const code =
    task.failureCode && /^[A-Z0-9_.]{1,60}$/.test(task.failureCode) ? ` (${task.failureCode})` : '';
  return `Runway: ${failure || 'the task failed.'}${code}`;
}

/** The state of a polled task. */
export function fromRunwayTask(json: unknown): VideoPollState {
  const parsed = taskSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UpstreamProtocolError(
      `Runway task: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'}`,
    );
  }
  const task = parsed.data;
  switch (task.status) {
    case 'PENDING':
    case 'THROTTLED':
      return { state: 'running', progress: null };
    case 'RUNNING':
      return {
        state: 'running',
        progress: typeof task.progress === 'number' ? Math.round(task.progress * 100) : null,
      };
    case 'FAILED':
      return { state: 'failed', message: failureMessage(task) };
    case 'CANCELLED':
      return { state: 'failed', message: 'Runway: the task was cancelled.' };
    case 'SUCCEEDED': {
      const url = task.output?.[0];
      if (url === undefined) throw new UpstreamProtocolError('Runway task: SUCCEEDED without an output');
      return { state: 'succeeded', downloadUrl: url };
    }
  }
}

export const runwayVideo: VideoAdapter = {
  submit(request: VideoRequest, target: UpstreamTarget): MediaHttpRequest {
    return {
      method: 'POST',
      url: runwayUrl(target, '/text_to_video'),
      headers: runwayHeaders(target.apiKey, true),
      body: JSON.stringify(toTextToVideoBody(request, target.nativeModel)),
    };
  },
  submitted(json: unknown): { operationId: string } {
    const parsed = submittedSchema.safeParse(json);
    if (!parsed.success) throw new UpstreamProtocolError('Runway text_to_video: the answer has no task id');
    return { operationId: parsed.data.id };
  },
  poll(operationId: string, target: UpstreamTarget): MediaHttpRequest {
    if (!TASK_ID.test(operationId)) throw new UpstreamProtocolError('Runway task id has an unexpected form');
    return {
      method: 'GET',
      url: runwayUrl(target, `/tasks/${operationId}`),
      headers: runwayHeaders(target.apiKey),
    };
  },
  polled: fromRunwayTask,
  download(downloadUrl: string): MediaHttpRequest {
    return { method: 'GET', url: downloadUrl, headers: { accept: 'video/mp4' } };
  },
};
