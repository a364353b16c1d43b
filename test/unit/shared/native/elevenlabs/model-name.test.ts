import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../../../../shared/src/catalogue/load-catalogue.ts';
import { AppError } from '../../../../../shared/src/errors/app-error.ts';
import {
  mapSoundModel,
  mapSpeechModel,
  mapTranscriptionModel,
} from '../../../../../shared/src/native/elevenlabs/model-name.ts';
import {
  boundaryOf,
  multipartParts,
  partNamed,
} from '../../../../../shared/src/native/elevenlabs/multipart.ts';
import { text, utf8 } from '../chunking.ts';

const catalogue = loadCatalogue();

describe('ElevenLabs model mapping', () => {
  it('maps model_id of a text-to-speech body, and takes the provider default when there is none', () => {
    const named = mapSpeechModel(utf8('{"text":"Hi","model_id":"eleven-flash"}'), catalogue);
    expect(named.model.id).toBe('elevenlabs/eleven_flash_v2_5');
    expect(text(named.body(named.routes[0] as never))).toBe('{"text":"Hi","model_id":"eleven_flash_v2_5"}');
    const body = utf8('{"text":"Hi"}');
    const unnamed = mapSpeechModel(body, catalogue);
    expect(unnamed.model.id).toBe('elevenlabs/eleven_multilingual_v2');
    expect(unnamed.body(unnamed.routes[0] as never)).toBe(body);
    expect(unnamed.body({ provider: 'elevenlabs', native_id: 'eleven_v3' })).toEqual(
      utf8('{"model_id":"eleven_v3","text":"Hi"}'),
    );
  });

  it('maps a sound-generation body', () => {
    expect(mapSoundModel(utf8('{"text":"boom","duration_seconds":2}'), catalogue).model.id).toBe(
      'elevenlabs/sound-effects',
    );
  });

  it('rewrites the model_id part of a speech-to-text upload, every other byte as sent', () => {
    const boundary = '----form7MA4YWxkTrZu0gW';
    const audio = Uint8Array.of(0xff, 0xfb, 0x90, 0x0d, 0x0a, 0x2d, 0x2d, 0x00);
    const head = utf8(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
    );
    const tail = utf8(
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="model_id"\r\n\r\nscribe\r\n--${boundary}\r\nContent-Disposition: form-data; name="diarize"\r\n\r\ntrue\r\n--${boundary}--\r\n`,
    );
    const body = new Uint8Array([...head, ...audio, ...tail]);
    const contentType = `multipart/form-data; boundary=${boundary}`;
    const mapped = mapTranscriptionModel(body, contentType, catalogue);
    expect(mapped.model.id).toBe('elevenlabs/scribe_v1');
    const out = mapped.body(mapped.routes[0] as never);
    const expected = new Uint8Array([
      ...head,
      ...audio,
      ...utf8(text(tail).replace('\r\nscribe\r\n', '\r\nscribe_v1\r\n')),
    ]);
    expect(Buffer.from(out).equals(Buffer.from(expected))).toBe(true);
    const file = partNamed(multipartParts(body, boundaryOf(contentType)), 'file');
    expect(body.subarray(file?.start, file?.end)).toEqual(audio);
  });

  it('answers 400 for a body that is not multipart, and for a model_id given twice', () => {
    const status = (action: () => unknown) => {
      try {
        action();
      } catch (error) {
        return error instanceof AppError ? error.status : 0;
      }
      return 200;
    };
    expect(status(() => mapTranscriptionModel(utf8('{}'), 'application/json', catalogue))).toBe(400);
    const twice = utf8(
      '--b\r\nContent-Disposition: form-data; name="model_id"\r\n\r\nscribe_v1\r\n--b\r\nContent-Disposition: form-data; name="model_id"\r\n\r\nother\r\n--b--',
    );
    expect(status(() => mapTranscriptionModel(twice, 'multipart/form-data; boundary="b"', catalogue))).toBe(
      400,
    );
  });
});
