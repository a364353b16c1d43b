import { PassThrough, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parseStream } from 'music-metadata';
import { type AudioProbe, checkAudioFormat, NotAudioError } from './audio-probe.ts';
import { SentAudio } from './sent-audio.ts';

/**
 * `probeAudio` for a stream that is read once, as it arrives (an upload on its way to S3): the same
 * verdict, without holding the file in memory. The stream is always read to its end, so whoever
 * else consumes the same bytes (the upload) is never starved when the parser stops early, and the
 * verdict waits for that end: the duration is that of every byte sent (`SentAudio`).
 */
export async function probeAudioStream(source: Readable, declaredContentType?: string): Promise<AudioProbe> {
  const head: Buffer[] = [];
  let headLength = 0;
  let total = 0;
  const tap = new PassThrough();
  const sent = new SentAudio();
  source.on('data', (chunk: Buffer) => {
    sent.push(chunk);
    total += chunk.length;
    if (headLength < 16) {
      head.push(chunk);
      headLength += chunk.length;
    }
  });
  source.pipe(tap);
  try {
    const metadata = await parseStream(tap, undefined, { duration: true, skipCovers: true });
    // The parser may stop before the end (a WAV whose header states 2 bytes of data): the rest is
    // read through, and measured, before the verdict.
    tap.resume();
    await finished(source);
    if (total === 0 && headLength === 0) throw new NotAudioError('unrecognized', 'The file is empty.');
    return checkAudioFormat(Buffer.concat(head), metadata.format, sent, declaredContentType);
  } catch (error) {
    if (error instanceof NotAudioError) throw error;
    if (total === 0) throw new NotAudioError('unrecognized', 'The file is empty.');
    throw new NotAudioError('unrecognized', 'The file is not a recognised audio file.', { cause: error });
  } finally {
    // Drain what the parser did not read, so the other consumer of `source` keeps flowing.
    tap.resume();
  }
}
