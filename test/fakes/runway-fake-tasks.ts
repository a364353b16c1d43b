/**
 * The fake Runway API's text-to-video tasks:
 * - `POST /v1/text_to_video` validates `{model, promptText, ratio, duration}` against the
 *   documented text-to-video models (gen4.5: 2 to 10 s, 1280:720 / 720:1280; veo3: 8 s; veo3.1 and
 *   veo3.1_fast: 4, 6, 8 s; the Veo ones also 1920:1080 / 1080:1920; promptText 1 to 1000) and
 *   answers `{id}` (a UUID). Image-to-video models (gen4_turbo, gen3a_turbo) are refused like
 *   any unknown model: 400 `{error: 'Validation of body failed', issues: [...]}`.
 * - `GET /v1/tasks/{id}`: the first poll answers PENDING, then RUNNING with `progress` (0..1) until
 *   `pollsUntilDone` polls, then SUCCEEDED with `output: [<signed URL on this server>]`, or FAILED
 *   (`[fail]` in the prompt or the `failRender` option: `INTERNAL`; `[moderation]`:
 *   `SAFETY.INPUT.TEXT`). Unknown ids answer 404.
 * - the signed output URL (`/outputs/{id}.mp4?_jwt=…`) needs no key but the right `_jwt`, and
 *   serves a small MP4 (`ftyp` first) stating the requested duration.
 */
import { bytes, hashOf, type Json, json, type MediaReply } from './media-fake-kit.ts';
import { tinyMp4 } from './media-files.ts';

export interface RunwayTaskOptions {
  /** Polls before the task ends (default 2: PENDING, then RUNNING at 50 %). */
  pollsUntilDone?: number;
  /** Every render fails. */
  failRender?: boolean;
}

const FULL = ['1280:720', '720:1280', '1920:1080', '1080:1920'];
const MODELS: Readonly<Record<string, { durations: number[]; ratios: string[] }>> = {
  'gen4.5': { durations: [2, 3, 4, 5, 6, 7, 8, 9, 10], ratios: ['1280:720', '720:1280'] },
  veo3: { durations: [8], ratios: FULL },
  'veo3.1': { durations: [4, 6, 8], ratios: FULL },
  'veo3.1_fast': { durations: [4, 6, 8], ratios: FULL },
};

interface Task {
  id: string;
  createdAt: string;
  prompt: string;
  duration: number;
  polls: number;
}

export function runwayError(status: number, error: string, issues?: Json[]): MediaReply {
  return json({ error, ...(issues ? { issues } : {}) }, status);
}

function invalid(path: string, message: string): MediaReply {
  return runwayError(400, 'Validation of body failed', [{ path: [path], message }]);
}

function checkBody(body: Json): MediaReply | undefined {
  const rules = MODELS[String(body.model)];
  if (!rules) return invalid('model', `Invalid enum value. Expected ${Object.keys(MODELS).join(' | ')}`);
  const prompt = body.promptText;
  if (typeof prompt !== 'string' || prompt.length < 1 || prompt.length > 1000) {
    return invalid('promptText', 'String must contain between 1 and 1000 character(s)');
  }
  if (!rules.ratios.includes(String(body.ratio)))
    return invalid('ratio', `Invalid enum value: ${String(body.ratio)}`);
  if (!rules.durations.includes(Number(body.duration))) {
    return invalid('duration', `Invalid duration ${String(body.duration)} for ${String(body.model)}`);
  }
  return undefined;
}

export class FakeRunwayTasks {
  readonly #tasks = new Map<string, Task>();
  readonly #options: RunwayTaskOptions;
  #count = 0;

  constructor(options: RunwayTaskOptions = {}) {
    this.#options = options;
  }

  create(body: Json): MediaReply {
    const rejected = checkBody(body);
    if (rejected) return rejected;
    this.#count += 1;
    const prompt = String(body.promptText);
    const id = `${hashOf(prompt)}-0000-4000-8000-${String(this.#count).padStart(12, '0')}`;
    const createdAt = new Date(Date.UTC(2025, 0, 1, 0, 0, this.#count)).toISOString();
    this.#tasks.set(id, { id, createdAt, prompt, duration: Number(body.duration), polls: 0 });
    return json({ id });
  }

  retrieve(id: string, origin: string): MediaReply {
    const task = this.#tasks.get(id);
    if (!task) return runwayError(404, 'Task not found');
    task.polls += 1;
    const base = { id, createdAt: task.createdAt };
    const until = this.#options.pollsUntilDone ?? 2;
    if (task.polls === 1 && until > 0) return json({ ...base, status: 'PENDING' });
    if (task.polls <= until) return json({ ...base, status: 'RUNNING', progress: (task.polls - 1) / until });
    if (this.#options.failRender || task.prompt.includes('[fail]')) {
      return json({
        ...base,
        status: 'FAILED',
        failure: 'An unexpected error occurred.',
        failureCode: 'INTERNAL',
      });
    }
    if (task.prompt.includes('[moderation]')) {
      const failure = 'The text prompt was flagged by content moderation.';
      return json({ ...base, status: 'FAILED', failure, failureCode: 'SAFETY.INPUT.TEXT' });
    }
    const output = [`${origin}/outputs/${id}.mp4?_jwt=${hashOf(`jwt:${id}`)}`];
    return json({ ...base, status: 'SUCCEEDED', output });
  }

  output(id: string, jwt: string | null): MediaReply {
    const task = this.#tasks.get(id);
    if (!task || jwt !== hashOf(`jwt:${id}`))
      return runwayError(403, 'Access denied: invalid or expired signature');
    return bytes(tinyMp4(task.duration), 'video/mp4');
  }
}
