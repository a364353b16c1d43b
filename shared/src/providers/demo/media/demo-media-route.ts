/**
 * The demo simulators as a media route: the same calls as an HTTP route's
 * (`upstream/http-media-route.ts`), answered in the process. A video "renders" for
 * `DEMO_VIDEO_RENDER_MS` after its submission, by the route's clock.
 */
import { Readable } from 'node:stream';
import type { MediaRoute, PngImage, SubmittedRender } from '../../media-route.ts';
import type {
  ImageRequest,
  SpeechRequest,
  TranscriptionRequest,
  TranscriptionResult,
  VideoPollState,
  VideoRequest,
} from '../../media-types.ts';
import { demoImages } from './demo-images.ts';
import { demoSpeech } from './demo-speech.ts';
import { demoTranscription } from './demo-transcription.ts';
import { demoVideo } from './demo-video.ts';

export class DemoMediaRoute implements MediaRoute {
  readonly provider = 'demo';
  readonly nativeModel: string;
  /** The demo transcription is made from the measured duration alone. */
  readonly readsAudio = false;
  private readonly renderMs: number;
  private readonly now: () => Date;

  constructor(nativeModel: string, renderMs: number, now: () => Date) {
    this.nativeModel = nativeModel;
    this.renderMs = renderMs;
    this.now = now;
  }

  async generate(request: ImageRequest): Promise<PngImage[]> {
    return demoImages
      .generate(request)
      .images.map((image) => ({ png: image.png, revisedPrompt: image.revisedPrompt }));
  }

  async synthesize(request: SpeechRequest): Promise<Readable> {
    return Readable.from([demoSpeech.synthesize(request)]);
  }

  async transcribe(request: TranscriptionRequest, measuredSeconds: number): Promise<TranscriptionResult> {
    return demoTranscription.transcribe(measuredSeconds, request);
  }

  async submit(_request: VideoRequest, jobId: string): Promise<string> {
    return `demo-${jobId}`;
  }

  async poll(render: SubmittedRender): Promise<VideoPollState> {
    const state = demoVideo.progress(this.now().getTime() - render.submittedAt.getTime(), this.renderMs);
    return state.state === 'succeeded' ? { state: 'succeeded', downloadUrl: 'demo:' } : state;
  }

  async download(request: VideoRequest): Promise<Readable> {
    return Readable.from([demoVideo.render(request).mp4]);
  }
}
