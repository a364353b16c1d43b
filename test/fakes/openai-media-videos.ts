/**
 * The fake's Videos API (Sora 2), as OpenAI documents it: `POST /v1/videos` (multipart, as
 * openai-node sends it, or JSON) creates a job and answers the `Video` object with status
 * `queued`; each `GET /v1/videos/{id}` advances it: `in_progress` with a rising `progress` until
 * the `completeAfterPolls`-th poll, which answers `completed` (progress 100) or, for a failing
 * render, `failed` with `error {code, message}`. `GET /v1/videos/{id}/content` answers a tiny MP4
 * (`video/mp4`) once completed, and 404 before that or for an unknown id.
 *
 * Validation: `model` sora-2 / sora-2-pro (404 for `missing…`), `prompt` required, `seconds`
 * '4' | '8' | '12' (default '4'), `size` 720x1280 (default) or 1280x720, plus 1024x1792 and
 * 1792x1024 on sora-2-pro.
 *
 * A render fails when the fake was started with `failRender`, or when the prompt contains
 * `[fail-render]` (so one fake can serve both cases).
 */
import { tinyMp4 } from './media-files.ts';
import { FAKE_CREATED, type Json } from './openai-fake-answers.ts';
import {
  bytesReply,
  errorReply,
  type FakeReply,
  invalidValue,
  jsonReply,
  missingModel,
} from './openai-media-reply.ts';

export interface FakeVideoOptions {
  /** The poll that answers `completed` (or `failed`); earlier polls answer `in_progress`. Default 2. */
  completeAfterPolls?: number;
  /** Every render fails, with this message when it is a string. */
  failRender?: boolean | string;
}

export const FAIL_RENDER_TRIGGER = '[fail-render]';
export const DEFAULT_RENDER_FAILURE = 'Video generation failed: the render could not be completed.';

interface FakeVideoJob {
  id: string;
  model: string;
  prompt: string;
  seconds: string;
  size: string;
  polls: number;
  fails: boolean;
}

const SIZES: Record<string, string[]> = {
  'sora-2': ['720x1280', '1280x720'],
  'sora-2-pro': ['720x1280', '1280x720', '1024x1792', '1792x1024'],
};

function fieldsOf(input: FormData | Json): Record<string, unknown> {
  return input instanceof FormData ? Object.fromEntries(input.entries()) : input;
}

function createError(fields: Record<string, unknown>): FakeReply | undefined {
  const model = String(fields.model ?? 'sora-2');
  const missing = missingModel(model);
  if (missing) return missing;
  const sizes = SIZES[model.startsWith('sora-2-pro') ? 'sora-2-pro' : 'sora-2'] ?? [];
  if (!model.startsWith('sora-2')) return invalidValue('model', model, Object.keys(SIZES));
  if (typeof fields.prompt !== 'string' || fields.prompt === '') {
    return errorReply(400, "Missing required parameter: 'prompt'.", {
      param: 'prompt',
      code: 'missing_required_parameter',
    });
  }
  const seconds = String(fields.seconds ?? '4');
  if (!['4', '8', '12'].includes(seconds)) return invalidValue('seconds', seconds, ['4', '8', '12']);
  const size = String(fields.size ?? '720x1280');
  return sizes.includes(size) ? undefined : invalidValue('size', size, sizes);
}

/** The video jobs of one fake server. */
export class FakeVideoJobs {
  readonly #jobs = new Map<string, FakeVideoJob>();
  readonly #options: FakeVideoOptions;

  constructor(options: FakeVideoOptions = {}) {
    this.#options = options;
  }

  create(input: FormData | Json): FakeReply {
    const fields = fieldsOf(input);
    const invalid = createError(fields);
    if (invalid) return invalid;
    const prompt = String(fields.prompt);
    const job: FakeVideoJob = {
      id: `video_${(this.#jobs.size + 1).toString(16).padStart(24, '0')}`,
      model: String(fields.model ?? 'sora-2'),
      prompt,
      seconds: String(fields.seconds ?? '4'),
      size: String(fields.size ?? '720x1280'),
      polls: 0,
      fails: Boolean(this.#options.failRender) || prompt.includes(FAIL_RENDER_TRIGGER),
    };
    this.#jobs.set(job.id, job);
    return jsonReply(this.#video(job, 'queued', 0));
  }

  retrieve(id: string): FakeReply {
    const job = this.#jobs.get(id);
    if (job === undefined) return notFound(id);
    job.polls += 1;
    const finishAt = Math.max(1, this.#options.completeAfterPolls ?? 2);
    if (job.polls < finishAt) {
      return jsonReply(this.#video(job, 'in_progress', Math.round((job.polls * 100) / finishAt)));
    }
    return jsonReply(this.#video(job, job.fails ? 'failed' : 'completed', job.fails ? 0 : 100));
  }

  content(id: string): FakeReply {
    const job = this.#jobs.get(id);
    if (job === undefined) return notFound(id);
    if (job.fails || job.polls < Math.max(1, this.#options.completeAfterPolls ?? 2)) {
      return errorReply(404, `Video ${id} is not ready; its content is available once it is completed.`);
    }
    return bytesReply(tinyMp4(Number(job.seconds)), 'video/mp4');
  }

  #video(job: FakeVideoJob, status: string, progress: number): Json {
    const done = status === 'completed' || status === 'failed';
    const message =
      typeof this.#options.failRender === 'string' ? this.#options.failRender : DEFAULT_RENDER_FAILURE;
    return {
      id: job.id,
      object: 'video',
      created_at: FAKE_CREATED,
      completed_at: done ? FAKE_CREATED + 60 : null,
      expires_at: status === 'completed' ? FAKE_CREATED + 3660 : null,
      error: status === 'failed' ? { code: 'video_generation_failed', message } : null,
      model: job.model,
      progress,
      prompt: job.prompt,
      remixed_from_video_id: null,
      seconds: job.seconds,
      size: job.size,
      status,
    };
  }
}

function notFound(id: string): FakeReply {
  return errorReply(404, `Video with id '${id}' not found.`, { code: 'not_found' });
}
