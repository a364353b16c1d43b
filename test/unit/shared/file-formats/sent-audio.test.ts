/**
 * The billed duration of an upload is that of the bytes sent, whatever the file states about
 * itself: a WAV whose data size says 2 bytes, an MP3 whose Xing header says one frame, a container
 * that states a duration shorter than its bytes can hold. Each lie is built from a real file.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { NotAudioError, probeAudio } from '../../../../shared/src/file-formats/audio-probe.ts';
import { probeAudioStream } from '../../../../shared/src/file-formats/audio-probe-stream.ts';
import { mp3OfFrames, mp3OfSeconds } from '../../../../shared/src/file-formats/builders/mp3.ts';
import { oggOpusOfSeconds } from '../../../../shared/src/file-formats/builders/ogg.ts';
import { wavOfSeconds } from '../../../../shared/src/file-formats/builders/wav.ts';
import { webmOpusOfSeconds } from '../../../../shared/src/file-formats/builders/webm.ts';
import { SentAudio } from '../../../../shared/src/file-formats/sent-audio.ts';

/** `wav` with its header's 32-bit little-endian field at `offset` set to `value`. */
function withField(wav: Uint8Array, offset: number, value: number): Uint8Array {
  const copy = Uint8Array.from(wav);
  new DataView(copy.buffer).setUint32(offset, value, true);
  return copy;
}

const DATA_SIZE = 40;
const RIFF_SIZE = 4;

function chunked(bytes: Uint8Array, size = 4_096): Readable {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(Buffer.from(bytes.subarray(i, i + size)));
  return Readable.from(chunks);
}

describe('a WAV is measured by the samples sent, not its header’s sizes', () => {
  const thirtySeconds = wavOfSeconds(30); // 16 kHz, 16-bit mono: 960,000 bytes of samples

  it('a data size of 2 bytes before 30 s of samples: 30 s, from bytes and from a stream', async () => {
    const lying = withField(thirtySeconds, DATA_SIZE, 2);
    expect((await probeAudio(lying)).durationSeconds).toBeCloseTo(30, 6);
    expect((await probeAudioStream(chunked(lying))).durationSeconds).toBeCloseTo(30, 6);
  });

  it('a RIFF size that ends the file early, or a data size of 0xFFFFFFFF (a streamed WAV): the bytes sent', async () => {
    expect((await probeAudio(withField(thirtySeconds, RIFF_SIZE, 36))).durationSeconds).toBeCloseTo(30, 6);
    const streamed = withField(thirtySeconds, DATA_SIZE, 0xffffffff);
    expect((await probeAudio(streamed)).durationSeconds).toBeCloseTo(30, 6);
  });

  it('a data size larger than what came (a cut upload): the seconds that came', async () => {
    const cut = withField(thirtySeconds, DATA_SIZE, 960_000 * 4);
    expect((await probeAudio(cut)).durationSeconds).toBeCloseTo(30, 6);
  });

  it('a fact chunk stating one sample before the data: the bytes sent', async () => {
    const header = thirtySeconds.subarray(0, 36);
    const fact = Uint8Array.from([0x66, 0x61, 0x63, 0x74, 4, 0, 0, 0, 1, 0, 0, 0]);
    const lying = Buffer.concat([header, fact, thirtySeconds.subarray(36)]);
    expect((await probeAudio(lying)).durationSeconds).toBeCloseTo(30, 6);
  });

  it('a byte rate the header cannot back (block align unlike channels × bytes a sample), compressed samples: refused', async () => {
    const blockAlign = Uint8Array.from(thirtySeconds);
    new DataView(blockAlign.buffer).setUint16(32, 64, true);
    await expect(probeAudio(blockAlign)).rejects.toBeInstanceOf(NotAudioError);
    const adpcm = Uint8Array.from(thirtySeconds);
    new DataView(adpcm.buffer).setUint16(20, 2, true); // WAVE_FORMAT_ADPCM
    const refused = await probeAudio(adpcm).catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'NotAudioError', reason: 'unsupported_format' });
  });
});

describe('an MP3 is measured by its frames and never below its bytes', () => {
  it('first frames at 320 kbps, then 30 s at 32 kbps (an estimate from its size says 3 s): 30 s', async () => {
    const mixed = Buffer.concat([
      mp3OfFrames(8, { bitrateKbps: 320 }),
      mp3OfSeconds(30, { bitrateKbps: 32 }),
    ]);
    expect((await probeAudio(mixed)).durationSeconds).toBeCloseTo(30 + (8 * 1152) / 44100, 1);
  });

  it('a Xing header stating one frame before 30 s of frames: 30 s', async () => {
    const frames = mp3OfSeconds(30);
    const first = Uint8Array.from(mp3OfFrames(1));
    // The Xing tag after MPEG-1 mono side information: "Xing", flags (frames field present), frames.
    first.set([0x58, 0x69, 0x6e, 0x67, 0, 0, 0, 1, 0, 0, 0, 1], 4 + 17);
    const lying = Buffer.concat([first, frames]);
    expect((await probeAudio(lying)).durationSeconds).toBeCloseTo(30, 1);
  });

  it('bytes after the frames that are no frames are billed at the highest MP3 bit rate', async () => {
    const garbage = Buffer.alloc(400_000, 0x55); // 10 s at 320 kbps
    const sent = Buffer.concat([mp3OfFrames(10), garbage]);
    expect((await probeAudio(sent)).durationSeconds).toBeGreaterThanOrEqual(10);
  });
});

describe('ADTS (AAC) by its frames', () => {
  /** `count` ADTS frames of 44.1 kHz stereo AAC LC, `length` bytes each (no CRC, one raw data block). */
  function adts(count: number, length = 200): Buffer {
    const frame = Buffer.alloc(length);
    frame.set([
      0xff,
      0xf1,
      0x50,
      0x80 | (length >> 11),
      (length >> 3) & 0xff,
      ((length & 7) << 5) | 0x1f,
      0xfc,
    ]);
    return Buffer.concat(Array.from({ length: count }, () => frame));
  }

  it('counts 1,024 samples a frame, whatever the file size suggests, however it is chunked', async () => {
    const probe = await probeAudio(adts(431));
    expect(probe.format).toBe('aac');
    expect(probe.durationSeconds).toBeCloseTo((431 * 1024) / 44100, 3);
    // Large first frames, then small ones: an estimate from the first frames and the size is short.
    const mixed = Buffer.concat([adts(20, 4_000), adts(2_000, 20)]);
    expect((await probeAudio(mixed)).durationSeconds).toBeCloseTo((2_020 * 1024) / 44100, 3);
    expect((await probeAudioStream(chunked(mixed, 3))).durationSeconds).toBeCloseTo(
      (2_020 * 1024) / 44100,
      3,
    );
  });
});

describe('Opus in Ogg by its packets', () => {
  it('a last page stating 1 s over 30 s of packets: 30 s, from bytes and from a stream', async () => {
    const honest = await probeAudio(oggOpusOfSeconds(30));
    expect(honest.format).toBe('ogg');
    expect(honest.durationSeconds).toBeCloseTo(30, 6);
    const lying = oggOpusOfSeconds(30, { statedSeconds: 1 });
    expect((await probeAudio(lying)).durationSeconds).toBeCloseTo(30, 6);
    expect((await probeAudioStream(chunked(lying, 5))).durationSeconds).toBeCloseTo(30, 6);
  });

  it('bytes between pages are skipped, as a reader resynchronises', async () => {
    const file = Buffer.from(oggOpusOfSeconds(10));
    const split = file.indexOf('OggS', 200, 'latin1');
    const noisy = Buffer.concat([
      file.subarray(0, split),
      Buffer.from('OgOggXgarbage'),
      file.subarray(split),
    ]);
    expect((await probeAudio(noisy)).durationSeconds).toBeCloseTo(10, 6);
  });
});

describe('Opus in WebM by its blocks', () => {
  it('a Duration of 1 s over 30 s of blocks: 30 s, from bytes and from a stream', async () => {
    const honest = await probeAudio(webmOpusOfSeconds(30, { statedSeconds: 30 }));
    expect(honest.format).toBe('webm');
    expect(honest.durationSeconds).toBeCloseTo(30, 6);
    const lying = webmOpusOfSeconds(30, { statedSeconds: 1 });
    expect((await probeAudio(lying)).durationSeconds).toBeCloseTo(30, 6);
    expect((await probeAudioStream(chunked(lying, 7))).durationSeconds).toBeCloseTo(30, 6);
  });

  it('a file without a Duration is measured by its blocks; so is one of unknown sizes (a live recording)', async () => {
    expect((await probeAudio(webmOpusOfSeconds(12))).durationSeconds).toBeCloseTo(12, 6);
    const sent = new SentAudio();
    sent.push(webmOpusOfSeconds(12, { unknownSizes: true }));
    expect(sent.seconds('webm', {} as never)).toEqual({ seconds: 12 });
  });

  it('laced blocks count every frame (Xiph, fixed-size and EBML lacing)', () => {
    const silence = [0xf8, 0xff, 0xfe];
    /** A SimpleBlock of track 1 at timecode 0: its flags, its lacing header, its frames. */
    const block = (flags: number, lacing: number[], frames: number) => {
      const body = Buffer.from([
        0x81,
        0,
        0,
        flags,
        ...lacing,
        ...Array.from({ length: frames }, () => silence).flat(),
      ]);
      return Buffer.concat([Buffer.from([0xa3, 0x80 | body.length]), body]);
    };
    const sent = new SentAudio();
    sent.push(Buffer.from(webmOpusOfSeconds(1, { statedSeconds: 1 })));
    sent.push(block(0x82, [2, 3, 3], 3)); // Xiph: frames - 1, the sizes of all but the last
    sent.push(block(0x84, [1], 2)); // fixed-size: frames - 1
    sent.push(block(0x86, [2, 0x83, 0xbf], 3)); // EBML: frames - 1, a first size, a difference of 0
    expect(sent.seconds('webm', { duration: 1 } as never)).toEqual({ seconds: 1.16 });
  });
});

describe('containers that state their duration: never below their bytes at the 16-bit PCM rate', () => {
  it('a FLAC stating 1 ms over 960,000 bytes of 16 kHz mono is at least 30 s', () => {
    const sent = new SentAudio();
    sent.push(Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(960_000 - 4)]));
    const stated = { duration: 0.001, sampleRate: 16_000, numberOfChannels: 1, bitsPerSample: 16 };
    expect(sent.seconds('flac', stated as never)).toEqual({ seconds: 30 });
  });

  it('a stated duration above that floor stands; a file with video is measured by what it states', () => {
    const sent = new SentAudio();
    sent.push(Buffer.alloc(32_000));
    const opus = { duration: 60, sampleRate: 48_000, numberOfChannels: 2 };
    expect(sent.seconds('ogg', opus as never)).toEqual({ seconds: 60 });
    const video = { duration: 0.5, sampleRate: 16_000, numberOfChannels: 1, hasVideo: true };
    expect(sent.seconds('mp4', video as never)).toEqual({ seconds: 0.5 });
    // A file that states no duration is not measured by the floor alone (it is refused).
    const unstated = { sampleRate: 48_000, numberOfChannels: 1 };
    expect(sent.seconds('webm', unstated as never)).toEqual({ seconds: 0 });
  });
});
