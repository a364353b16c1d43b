/**
 * The contract of the media capabilities (images, speech, transcription, video): validated gateway
 * requests, what each provider adapter turns them into, and what it makes of the answers. Like the
 * chat adapters, these are pure functions: the worker sends what they build (see `MediaHttpRequest`)
 * and feeds back what it receives. Binary answers (speech audio, video files) are not parsed by the
 * adapters: the worker streams them to S3.
 */
import type { UpstreamTarget } from './chat-types.ts';

/** An HTTP request to an upstream that may be a GET, a JSON POST or a multipart POST. */
export interface MediaHttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** JSON text (content-type set by the adapter in `headers`), or a multipart form, or none. */
  body?: string | MultipartBody;
}

/** A multipart/form-data body: text fields and at most one file, built by the worker with undici's FormData. */
export interface MultipartBody {
  kind: 'multipart';
  fields: Record<string, string>;
  file?: { field: string; fileName: string; contentType: string; data: Uint8Array };
}

/* ----------------------------------------------------------------------------------------------
 * Images: `POST /v1/images/generations`
 * -------------------------------------------------------------------------------------------- */

export interface ImageRequest {
  prompt: string;
  /** 1 to 4. */
  n: number;
  /** `<width>x<height>` or `auto`. */
  size?: string;
  quality?: 'low' | 'medium' | 'high' | 'auto';
  background?: string;
  aspect_ratio?: string;
}

export interface GeneratedImage {
  /** PNG bytes as base64, when the upstream returned them inline. */
  base64?: string;
  /** A download address, when the upstream returned one instead (fetched by the worker at once). */
  url?: string;
  revisedPrompt?: string;
}

export interface ImageResult {
  images: GeneratedImage[];
  /** Token usage, for upstreams that report it (gpt-image-1); billing is per image regardless. */
  usage?: { inputTokens: number; outputTokens: number };
}

export interface ImageAdapter {
  request(request: ImageRequest, target: UpstreamTarget): MediaHttpRequest;
  response(json: unknown, request: ImageRequest): ImageResult;
}

/* ----------------------------------------------------------------------------------------------
 * Speech: `POST /v1/audio/speech` — the upstream answers audio bytes (MP3 asked for)
 * -------------------------------------------------------------------------------------------- */

export interface SpeechRequest {
  input: string;
  /** A voice name, or a voice id for providers that use ids (ElevenLabs). */
  voice: string;
  instructions?: string;
  speed?: number;
}

export interface SpeechAdapter {
  /** The request must ask the upstream for MP3 (`audio/mpeg`). */
  request(request: SpeechRequest, target: UpstreamTarget): MediaHttpRequest;
}

/* ----------------------------------------------------------------------------------------------
 * Transcription: `POST /v1/audio/transcriptions` — the audio is uploaded to the upstream
 * -------------------------------------------------------------------------------------------- */

export interface TranscriptionRequest {
  language?: string;
  prompt?: string;
  audio: { fileName: string; contentType: string; data: Uint8Array };
}

export interface TranscriptionWord {
  word: string;
  start: number;
  end: number;
}

export interface TranscriptionResult {
  text: string;
  /** Language code, when the upstream reports one. */
  language: string | null;
  /** Seconds, when the upstream reports it (the gateway bills the duration it measured itself). */
  duration: number | null;
  words: TranscriptionWord[];
}

export interface TranscriptionAdapter {
  request(request: TranscriptionRequest, target: UpstreamTarget): MediaHttpRequest;
  response(json: unknown): TranscriptionResult;
}

/* ----------------------------------------------------------------------------------------------
 * Video: `POST /v1/videos` — submit, poll until done, download the MP4
 * -------------------------------------------------------------------------------------------- */

export interface VideoRequest {
  prompt: string;
  /** Seconds. */
  duration: number;
  aspect_ratio?: '16:9' | '9:16' | '1:1';
  resolution?: '720p' | '1080p';
}

export type VideoPollState =
  | { state: 'running'; progress: number | null }
  | { state: 'succeeded'; downloadUrl: string }
  | { state: 'failed'; message: string };

export interface VideoAdapter {
  submit(request: VideoRequest, target: UpstreamTarget): MediaHttpRequest;
  /** The upstream's id of the render (operation name, task id…). */
  submitted(json: unknown): { operationId: string };
  poll(operationId: string, target: UpstreamTarget): MediaHttpRequest;
  polled(json: unknown): VideoPollState;
  /** The GET that fetches the finished MP4 (with whatever authentication the upstream requires). */
  download(downloadUrl: string, target: UpstreamTarget): MediaHttpRequest;
}

/** The media capabilities of one provider, with the same error reading as its chat adapter. */
export interface MediaProviderAdapter {
  images?: ImageAdapter;
  speech?: SpeechAdapter;
  transcription?: TranscriptionAdapter;
  video?: VideoAdapter;
  errorMessage: (status: number, bodyText: string) => string;
  isCredentialRejection?: (status: number, bodyText: string) => boolean;
}
