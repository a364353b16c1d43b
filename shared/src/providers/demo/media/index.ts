/**
 * The `demo` provider's media capabilities: offline, deterministic SIMULATORS producing real,
 * valid media (PNG images, MP3 speech, transcriptions of the measured audio duration, a playable
 * MP4, sound-effect lengths), so the media endpoints work end to end with no internet. Like demo
 * chat and embeddings, they answer in the process: the registry resolves a `demo` media route to a
 * `DemoMediaRoute` (`demo-media-route.ts`), called like any HTTP route.
 */
import { demoImages } from './demo-images.ts';
import { demoSpeech } from './demo-speech.ts';
import { demoTranscription } from './demo-transcription.ts';
import { demoVideo } from './demo-video.ts';

export {
  DEMO_IMAGE_DEFAULT_SIDE,
  DEMO_IMAGE_MAX_N,
  DEMO_IMAGE_MAX_SIDE,
  type DemoImage,
  demoImageSize,
  demoImages,
} from './demo-images.ts';
export {
  DEMO_SOUND_DEFAULT_SECONDS,
  DEMO_SOUND_MAX_SECONDS,
  DEMO_SOUND_MIN_SECONDS,
  type DemoSoundRequest,
  demoSoundSeconds,
} from './demo-sound.ts';
export {
  DEMO_SPEECH_CHARACTERS_PER_SECOND,
  DEMO_SPEECH_MAX_SPEED,
  DEMO_SPEECH_MIN_SPEED,
  demoSpeech,
  demoSpeechSeconds,
} from './demo-speech.ts';
export { demoTranscription } from './demo-transcription.ts';
export {
  DEMO_VIDEO_MAX_SECONDS,
  DEMO_VIDEO_MIN_SECONDS,
  type DemoVideoState,
  demoVideo,
} from './demo-video.ts';

/** The demo media capabilities under one name. */
export const demoMedia = {
  images: demoImages,
  speech: demoSpeech,
  transcription: demoTranscription,
  video: demoVideo,
};
