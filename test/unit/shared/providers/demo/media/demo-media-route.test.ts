/**
 * The demo simulators behind the media route interface the processors call: the simulators' own
 * media, the measured duration for a transcription (the audio is never read), and a render that
 * finishes DEMO_VIDEO_RENDER_MS after its submission by the route's clock.
 */
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '../../../../../../shared/src/providers/chat-types.ts';
import { DemoMediaRoute } from '../../../../../../shared/src/providers/demo/media/demo-media-route.ts';
import {
  demoImages,
  demoSpeech,
  demoTranscription,
  demoVideo,
} from '../../../../../../shared/src/providers/demo/media/index.ts';
import type { MediaRoute } from '../../../../../../shared/src/providers/media-route.ts';

const SUBMITTED = new Date('2026-01-01T00:00:00Z');
const RENDER_MS = 2_000;

function routeAt(elapsedMs: number): MediaRoute {
  return new DemoMediaRoute('demo-video', RENDER_MS, () => new Date(SUBMITTED.getTime() + elapsedMs));
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

describe('demo media route', () => {
  const route = routeAt(0);

  it('is a demo route of its native model that does not read uploaded audio', () => {
    expect([route.provider, route.nativeModel, route.readsAudio]).toEqual(['demo', 'demo-video', false]);
  });

  it("generates the simulator's PNGs with their revised prompt", async () => {
    const request = { prompt: 'a red fox', n: 2, size: '64x64' };
    const images = await route.generate(request);
    expect(images).toEqual(
      demoImages.generate(request).images.map(({ png, revisedPrompt }) => ({ png, revisedPrompt })),
    );
    await expect(route.generate({ ...request, n: 9 })).rejects.toBeInstanceOf(UnsupportedFeatureError);
  });

  it("streams the simulator's MP3", async () => {
    const request = { input: 'Hello there', voice: 'alloy' };
    expect(await bytesOf(await route.synthesize(request))).toEqual(
      Buffer.from(demoSpeech.synthesize(request)),
    );
  });

  it('transcribes the duration the gateway measured, whatever the audio bytes', async () => {
    const request = {
      language: 'fa',
      audio: { fileName: 'a.wav', contentType: 'audio/wav', data: new Uint8Array() },
    };
    await expect(route.transcribe(request, 4.2)).resolves.toEqual(demoTranscription.transcribe(4.2, request));
  });

  it('names the render after its job, runs until the render time has passed, then downloads the MP4', async () => {
    const request = { prompt: 'waves', duration: 3 };
    const operationId = await route.submit(request, 'video_abc');
    expect(operationId).toBe('demo-video_abc');
    const render = { operationId, submittedAt: SUBMITTED };
    await expect(routeAt(500).poll(render)).resolves.toEqual({ state: 'running', progress: 25 });
    await expect(routeAt(RENDER_MS - 1).poll(render)).resolves.toEqual({ state: 'running', progress: 99 });
    await expect(routeAt(RENDER_MS).poll(render)).resolves.toEqual({
      state: 'succeeded',
      downloadUrl: 'demo:',
    });
    expect(await bytesOf(await route.download(request, 'demo:'))).toEqual(
      Buffer.from(demoVideo.render(request).mp4),
    );
  });
});
