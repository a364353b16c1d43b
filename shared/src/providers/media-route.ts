/**
 * The media capabilities of a resolved route, as the media processors call them: they never know
 * whether an HTTP adapter (`upstream/http-media-route.ts`) or the offline demo simulator
 * (`demo/media/demo-media-route.ts`) answers. A call fails as `firstSuccessfulRoute` expects.
 */
import type { Readable } from 'node:stream';
import type {
  ImageRequest,
  SpeechRequest,
  TranscriptionRequest,
  TranscriptionResult,
  VideoPollState,
  VideoRequest,
} from './media-types.ts';
import type { RouteIdentity } from './route-identity.ts';

/** A generated image, checked to be a PNG. */
export interface PngImage {
  readonly png: Uint8Array;
  readonly revisedPrompt: string | null;
}

export interface ImageCaller {
  /** The request's images (at least one). */
  generate(request: ImageRequest): Promise<PngImage[]>;
}

export interface SpeechCaller {
  /** The speech as MP3 (`audio/mpeg`), streamed. */
  synthesize(request: SpeechRequest): Promise<Readable>;
}

export interface TranscriptionCaller {
  /** Whether `transcribe` listens to the audio's bytes (the demo simulator only needs its measured duration). */
  readonly readsAudio: boolean;
  /** `measuredSeconds`: the audio's duration as the gateway measured it from the upload. */
  transcribe(request: TranscriptionRequest, measuredSeconds: number): Promise<TranscriptionResult>;
}

/** A render the route accepted, as recorded on the job. */
export interface SubmittedRender {
  readonly operationId: string;
  readonly submittedAt: Date;
}

export interface VideoCaller {
  /** Submits the render of job `jobId`; resolves with the provider's id of it (its operation). */
  submit(request: VideoRequest, jobId: string): Promise<string>;
  poll(render: SubmittedRender): Promise<VideoPollState>;
  /** The finished MP4, streamed; `downloadUrl` is the one the successful poll gave. */
  download(request: VideoRequest, downloadUrl: string): Promise<Readable>;
}

/** A media model's route, ready to call. */
export interface MediaRoute
  extends RouteIdentity,
    ImageCaller,
    SpeechCaller,
    TranscriptionCaller,
    VideoCaller {}
