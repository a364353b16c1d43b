import { Readable } from 'node:stream';
import type { MediaRoute, PngImage, SubmittedRender } from '../providers/media-route.ts';
import type {
  ImageRequest,
  MediaProviderAdapter,
  SpeechRequest,
  TranscriptionRequest,
  TranscriptionResult,
  VideoPollState,
  VideoRequest,
} from '../providers/media-types.ts';
import { generateImages } from './http-images.ts';
import { HttpRoute } from './http-route.ts';
import { capabilityOf, send, sendForJson, sendForMedia } from './media-calls.ts';

/**
 * A media route over a provider's HTTP media adapter: the adapter builds each request for `target`,
 * the client sends it, and the adapter reads the answer (binary answers are streamed, not read).
 * A capability the provider lacks fails its call with 502.
 */
export class HttpMediaRoute extends HttpRoute<MediaProviderAdapter> implements MediaRoute {
  readonly readsAudio = true;

  generate(request: ImageRequest): Promise<PngImage[]> {
    return generateImages(this, request);
  }

  async synthesize(request: SpeechRequest): Promise<Readable> {
    return sendForMedia(this, capabilityOf(this, 'speech').request(request, this.target), /^audio\//);
  }

  async transcribe(request: TranscriptionRequest): Promise<TranscriptionResult> {
    const transcription = capabilityOf(this, 'transcription');
    return transcription.response(await sendForJson(this, transcription.request(request, this.target)));
  }

  async submit(request: VideoRequest): Promise<string> {
    const video = capabilityOf(this, 'video');
    return video.submitted(await sendForJson(this, video.submit(request, this.target))).operationId;
  }

  async poll(render: SubmittedRender): Promise<VideoPollState> {
    const video = capabilityOf(this, 'video');
    return video.polled(await sendForJson(this, video.poll(render.operationId, this.target)));
  }

  async download(_request: VideoRequest, downloadUrl: string): Promise<Readable> {
    const video = capabilityOf(this, 'video');
    return Readable.from((await send(this, video.download(downloadUrl, this.target))).body);
  }
}
