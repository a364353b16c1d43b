/**
 * The fake's Veo long-running operations, as the Gemini API shapes them:
 * - `:predictLongRunning` validates `{instances: [{prompt}], parameters: {durationSeconds?,
 *   aspectRatio?, resolution?}}` against the model's documented values (Veo 3.x: 4, 6, 8 s;
 *   Veo 2: 5 to 8 s and no `resolution`) and answers `{name: 'models/<model>/operations/<id>'}`;
 * - `GET /v1beta/<name>` answers `{name}` (running) for `pollsUntilDone` polls, then `{name, done:
 *   true, response: {'@type', generateVideoResponse: {generatedSamples: [{video: {uri}}]}}}`
 *   where `uri` is `<origin>/v1beta/files/<id>:download?alt=media`;
 * - a prompt containing `[fail]` (or the `failRender` option) ends `{done: true, error: {code: 13,
 *   message}}`; `[filtered]` ends with `raiMediaFilteredCount`/`raiMediaFilteredReasons`;
 * - the file download serves a small MP4 (`ftyp` first) stating the requested duration.
 */
import { errorBody, invalidArgument } from './google-media-answers.ts';
import { asArray, asRecord, bytes, hashOf, type Json, json, type MediaReply } from './media-fake-kit.ts';
import { tinyMp4 } from './media-files.ts';

export interface VeoFakeOptions {
  /** Polls answered "not done" before the operation is done (default 2). */
  pollsUntilDone?: number;
  /** Every render fails. */
  failRender?: boolean;
}

interface Operation {
  name: string;
  prompt: string;
  durationSeconds: number;
  polls: number;
  fileId: string;
}

export const VEO_FILTER_REASON =
  "We encountered an issue with the audio for your prompt. You weren't charged for this request. Support codes: 29310472";
export const VEO_FAILURE_MESSAGE = 'Video generation failed due to an internal error. Please try again.';

function checkVeoParameters(parameters: Json, model: string): string | undefined {
  const duration = parameters.durationSeconds;
  const veo2 = model.startsWith('veo-2');
  const allowed = veo2 ? [5, 6, 7, 8] : [4, 6, 8];
  if (duration !== undefined && !allowed.includes(Number(duration))) {
    return `The number value for \`durationSeconds\` is out of bound. Please provide one of ${allowed.join(', ')}.`;
  }
  const ratio = parameters.aspectRatio;
  if (ratio !== undefined && ratio !== '16:9' && ratio !== '9:16')
    return `Unsupported aspect ratio: ${String(ratio)}.`;
  const resolution = parameters.resolution;
  if (resolution !== undefined && veo2) return "`resolution` isn't supported by this model.";
  if (resolution !== undefined && resolution !== '720p' && resolution !== '1080p') {
    return `Unsupported resolution: ${String(resolution)}.`;
  }
  return undefined;
}

export class FakeVeoOperations {
  readonly #operations = new Map<string, Operation>();
  readonly #files = new Map<string, number>();
  readonly #options: VeoFakeOptions;
  #count = 0;

  constructor(options: VeoFakeOptions = {}) {
    this.#options = options;
  }

  submit(body: Json, model: string): MediaReply {
    const prompt = asRecord(asArray(body.instances)[0])?.prompt;
    if (typeof prompt !== 'string' || prompt === '')
      return invalidArgument('instances[0].prompt is required.');
    const parameters = asRecord(body.parameters) ?? {};
    const invalid = checkVeoParameters(parameters, model);
    if (invalid) return invalidArgument(invalid);
    this.#count += 1;
    const id = `${hashOf(`${model}:${prompt}`)}${this.#count}`;
    const name = `models/${model}/operations/${id}`;
    const durationSeconds = Number(parameters.durationSeconds ?? 8);
    this.#operations.set(name, { name, prompt, durationSeconds, polls: 0, fileId: `video${id}` });
    return json({ name });
  }

  poll(name: string, origin: string): MediaReply {
    const operation = this.#operations.get(name);
    if (!operation) return json(errorBody(404, 'NOT_FOUND', `Operation ${name} not found.`), 404);
    operation.polls += 1;
    if (operation.polls <= (this.#options.pollsUntilDone ?? 2)) return json({ name });
    return json({ name, done: true, ...this.#outcome(operation, origin) });
  }

  #outcome(operation: Operation, origin: string): Json {
    if (this.#options.failRender || operation.prompt.includes('[fail]')) {
      return { error: { code: 13, message: VEO_FAILURE_MESSAGE } };
    }
    const type = 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse';
    if (operation.prompt.includes('[filtered]')) {
      return {
        response: {
          '@type': type,
          generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: [VEO_FILTER_REASON] },
        },
      };
    }
    this.#files.set(operation.fileId, operation.durationSeconds);
    const uri = `${origin}/v1beta/files/${operation.fileId}:download?alt=media`;
    return { response: { '@type': type, generateVideoResponse: { generatedSamples: [{ video: { uri } }] } } };
  }

  download(fileId: string): MediaReply {
    const duration = this.#files.get(fileId);
    if (duration === undefined) return json(errorBody(404, 'NOT_FOUND', `File ${fileId} not found.`), 404);
    return bytes(tinyMp4(duration), 'video/mp4');
  }
}
