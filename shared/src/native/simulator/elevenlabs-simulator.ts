/**
 * ElevenLabs' API as the native simulator answers it, by the demo rules: text to speech (silent
 * audio of characters / 15 seconds, at least 1 s, as the demo speech model), sound generation
 * (silent audio of `duration_seconds`, 0.5 to 30, else 5 s, as the demo sound model), and speech
 * to text (the demo transcription of the uploaded file's measured duration). Audio comes in the `output_format` asked for: MP3
 * (`mp3_<rate>_<kbps>`, MPEG-1 rates; others answer MP3 at 44.1 kHz, 128 kbps), PCM
 * (`pcm_<rate>`, 16-bit silence) or G.711 (`ulaw_8000`, `alaw_8000`); any other format answers 400.
 */
import { probeAudio } from '../../file-formats/audio-probe.ts';
import { type Mp3Options, mp3OfSeconds } from '../../file-formats/builders/mp3.ts';
import { UnsupportedFeatureError } from '../../providers/chat-types.ts';
import { demoSoundSeconds } from '../../providers/demo/media/demo-sound.ts';
import { demoSpeechSeconds } from '../../providers/demo/media/demo-speech.ts';
import { demoTranscription } from '../../providers/demo/media/demo-transcription.ts';
import type { UpstreamResponse } from '../../upstream/upstream-client.ts';
import { boundaryOf, multipartParts, partNamed, partText } from '../elevenlabs/multipart.ts';
import { isObject } from '../native-usage.ts';
import { simulatedJson, simulatedResponse } from './simulated-response.ts';

/** The simulator's answer to an ElevenLabs request on `path` (with its `query`). */
export async function simulateElevenLabs(
  path: string,
  query: URLSearchParams,
  contentType: string | undefined,
  body: Uint8Array,
): Promise<UpstreamResponse> {
  if (path === '/v1/speech-to-text') return transcribe(contentType, body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return detailError(400, 'invalid_json', 'The body is not valid JSON.');
  }
  const text = isObject(parsed) && typeof parsed.text === 'string' ? parsed.text : '';
  if (text.trim() === '') return detailError(400, 'invalid_text', 'text must not be empty.');
  const duration = isObject(parsed) ? parsed.duration_seconds : undefined;
  let seconds: number;
  try {
    seconds = path.startsWith('/v1/sound-generation')
      ? demoSoundSeconds({ text, duration_seconds: typeof duration === 'number' ? duration : undefined })
      : demoSpeechSeconds({ input: text });
  } catch (error) {
    if (!(error instanceof UnsupportedFeatureError)) throw error;
    return detailError(400, 'invalid_request', error.message);
  }
  return audioAnswer(query.get('output_format') ?? 'mp3_44100_128', seconds);
}

function audioAnswer(format: string, seconds: number): UpstreamResponse {
  const pcm = /^pcm_(\d+)$/.exec(format);
  if (pcm) return simulatedResponse('audio/pcm', [new Uint8Array(2 * Math.round(seconds * Number(pcm[1])))]);
  if (format === 'ulaw_8000' || format === 'alaw_8000') {
    const silence = format === 'ulaw_8000' ? 0xff : 0xd5;
    return simulatedResponse('audio/basic', [new Uint8Array(Math.round(seconds * 8000)).fill(silence)]);
  }
  if (!format.startsWith('mp3_')) {
    return detailError(400, 'invalid_output_format', `The demo simulator does not produce ${format}.`);
  }
  return simulatedResponse('audio/mpeg', [mp3OfSeconds(seconds, mp3Options(format))]);
}

/** MPEG-1 settings of `mp3_<rate>_<kbps>` when the builder has them, else its defaults. */
function mp3Options(format: string): Mp3Options {
  const [, rate, kbps] = format.split('_').map(Number);
  const options: Mp3Options = {};
  if (rate === 32000 || rate === 44100 || rate === 48000) options.sampleRate = rate;
  if (kbps !== undefined && [32, 64, 96, 128, 192].includes(kbps))
    options.bitrateKbps = kbps as Mp3Options['bitrateKbps'];
  return options;
}

async function transcribe(contentType: string | undefined, body: Uint8Array): Promise<UpstreamResponse> {
  let parts: ReturnType<typeof multipartParts>;
  try {
    parts = multipartParts(body, boundaryOf(contentType));
  } catch {
    return detailError(400, 'invalid_form', 'The body is not multipart/form-data.');
  }
  const file = partNamed(parts, 'file');
  if (file === undefined) return detailError(400, 'invalid_file', 'Upload an audio file as `file`.');
  let seconds: number;
  try {
    seconds = (await probeAudio(body.subarray(file.start, file.end))).durationSeconds;
  } catch {
    return detailError(400, 'invalid_audio', 'The demo simulator could not measure the audio file.');
  }
  const language = partNamed(parts, 'language_code');
  const result = demoTranscription.transcribe(seconds, {
    language: language === undefined ? undefined : partText(body, language),
  });
  return simulatedJson({
    language_code: result.language,
    language_probability: 1,
    text: result.text,
    words: result.words.map((word) => ({
      text: word.word,
      start: word.start,
      end: word.end,
      type: 'word',
      logprob: 0,
    })),
    audio_duration_secs: result.duration,
  });
}

function detailError(status: number, code: string, message: string): UpstreamResponse {
  return simulatedJson({ detail: { status: code, message } }, status);
}
