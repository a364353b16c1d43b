import { finished, PassThrough } from 'node:stream';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { AppError, errors } from '../../../shared/src/errors/app-error.ts';
import type { AudioProbe } from '../../../shared/src/file-formats/audio-probe.ts';
import { NotAudioError } from '../../../shared/src/file-formats/audio-probe.ts';
import { probeAudioStream } from '../../../shared/src/file-formats/audio-probe-stream.ts';
import type { MediaStorage } from '../../../shared/src/media-jobs/media-storage.ts';
import { FieldValidationError, fieldError } from '../plugins/field-validation.ts';

/** The spec's transcription file limit. */
export const MAX_AUDIO_BYTES = 50 * 1024 * 1024;

export interface ReceivedAudio {
  readonly fields: Readonly<Record<string, string>>;
  readonly fileName: string;
  readonly sizeBytes: number;
  readonly probe: AudioProbe;
}

/**
 * Reads a `multipart/form-data` transcription request: text fields, and the `file` part streamed
 * straight into S3 under `key` while it is measured (format, duration) on the way — never held in
 * memory whole. The 50 MB limit is enforced while streaming. Anything wrong (no file, a second
 * file, a file over the limit or that is not audio) is a 422, a body that does not parse as
 * multipart (no boundary, another boundary, cut short) a 400, a body that stalls a 408 (the body
 * read deadline), and nothing stays stored: the S3 multipart upload is aborted, the object deleted.
 */
export async function receiveAudioUpload(
  request: FastifyRequest,
  storage: MediaStorage,
  key: string,
): Promise<ReceivedAudio> {
  const fields: Record<string, string> = {};
  let received: Omit<ReceivedAudio, 'fields'> | undefined;
  try {
    for await (const part of request.parts({
      limits: { fileSize: MAX_AUDIO_BYTES, files: 1, fields: 20, fieldSize: 64 * 1024 },
    })) {
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value);
        continue;
      }
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw fieldError(part.fieldname, 'is not a field of this request; send the audio as `file`');
      }
      received = await storeAndProbe(part, storage, key);
    }
  } catch (err) {
    await storage.remove([key]).catch(() => undefined);
    throw asFieldError(err);
  }
  if (received === undefined) throw fieldError('file', 'is required');
  return { fields, ...received };
}

async function storeAndProbe(
  part: MultipartFile,
  storage: MediaStorage,
  key: string,
): Promise<Omit<ReceivedAudio, 'fields'>> {
  let sizeBytes = 0;
  const toStorage = new PassThrough();
  const toProbe = new PassThrough();
  // Their failure is observed through the upload and `failure` below; an 'error' event with no
  // listener would be thrown instead.
  toStorage.on('error', ignore);
  toProbe.on('error', ignore);
  // `pipe` does not pass a failure on: when the file part fails (the body stalled past
  // BODY_READ_TIMEOUT_MS, the client went away, the part was cut short), both consumers are
  // failed with it, so the S3 upload aborts its multipart upload and nothing waits forever.
  let failed: (err: unknown) => void = () => undefined;
  const failure = new Promise<never>((_resolve, reject) => {
    failed = reject;
  });
  failure.catch(() => undefined);
  const fail = (err: unknown) => {
    const reason = err instanceof Error ? err : new Error('the file part ended early');
    failed(reason);
    toStorage.destroy(reason);
    toProbe.destroy(reason);
  };
  // `finished` also reports a part that failed before this function got it (a small body is
  // parsed, and found cut short, in one go): it sees the stream's state, not only later events.
  finished(part.file, (err) => {
    if (err) fail(err);
  });
  part.file.on('data', (chunk: Buffer) => {
    sizeBytes += chunk.length;
  });
  part.file.pipe(toStorage);
  part.file.pipe(toProbe);
  const [stored, probed] = await Promise.allSettled([
    // A failed upload must not stall the probe, which reads the same bytes: keep draining.
    storage.putStream(key, toStorage, part.mimetype || 'application/octet-stream').catch((err: unknown) => {
      toStorage.resume();
      throw err;
    }),
    // The probe does not notice its input failing: the failure ends the wait for it.
    Promise.race([probeAudioStream(toProbe, part.mimetype), failure]),
  ]);
  if (part.file.truncated) throw fieldError('file', 'must be at most 50 MB');
  if (probed.status === 'rejected') throw probed.reason;
  if (stored.status === 'rejected') throw stored.reason;
  return { fileName: part.filename || 'audio', sizeBytes, probe: probed.value };
}

function ignore(): void {}

/** busboy's messages for a body that does not parse as multipart/form-data. */
const NO_BOUNDARY = [
  'Multipart: Boundary not found',
  'Boundary required',
  'The needle cannot be an empty String/Buffer.',
  'The needle cannot have a length bigger than 256.',
];
const MALFORMED = [
  'Unexpected end of multipart data',
  'terminated early due to unexpected end of multipart data',
];

/** A multipart body that cannot be read, as a 400 (the spec's answer to a body it cannot read). */
function multipartError(err: unknown): AppError | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (NO_BOUNDARY.includes(err.message))
    return errors.invalidRequest(
      'The multipart/form-data body cannot be read: its Content-Type names no valid boundary.',
    );
  if (MALFORMED.some((message) => err.message.endsWith(message)) || code === 'FST_MP_PREMATURE_CLOSE')
    return errors.invalidRequest(
      'The multipart/form-data body is malformed or cut short (does it use the boundary its Content-Type names?).',
    );
  return undefined;
}

function asFieldError(err: unknown): unknown {
  if (err instanceof FieldValidationError || err instanceof AppError) return err;
  const unreadable = multipartError(err);
  if (unreadable !== undefined) return unreadable;
  // The probe's messages are whole sentences ("The file is empty."): the answer's message as is.
  if (err instanceof NotAudioError) return new FieldValidationError({ file: [err.message] }, err.message);
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return fieldError('file', 'must be at most 50 MB');
  if (code === 'FST_FILES_LIMIT') return fieldError('file', 'must be a single file');
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE')
    return fieldError('file', 'must be sent as multipart/form-data');
  return err;
}
