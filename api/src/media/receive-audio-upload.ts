import { PassThrough } from 'node:stream';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { AudioProbe } from '../../../shared/src/media/audio-probe.ts';
import { NotAudioError } from '../../../shared/src/media/audio-probe.ts';
import { probeAudioStream } from '../../../shared/src/media/audio-probe-stream.ts';
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
 * file, a file over the limit or that is not audio) is a 422, and nothing stays stored.
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
    probeAudioStream(toProbe, part.mimetype),
  ]);
  if (part.file.truncated) throw fieldError('file', 'must be at most 50 MB');
  if (probed.status === 'rejected') throw probed.reason;
  if (stored.status === 'rejected') throw stored.reason;
  return { fileName: part.filename || 'audio', sizeBytes, probe: probed.value };
}

function asFieldError(err: unknown): unknown {
  if (err instanceof FieldValidationError) return err;
  // The probe's messages are whole sentences ("The file is empty."): the answer's message as is.
  if (err instanceof NotAudioError) return new FieldValidationError({ file: [err.message] }, err.message);
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return fieldError('file', 'must be at most 50 MB');
  if (code === 'FST_FILES_LIMIT') return fieldError('file', 'must be a single file');
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE')
    return fieldError('file', 'must be sent as multipart/form-data');
  return err;
}
