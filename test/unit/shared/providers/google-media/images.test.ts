import { describe, expect, it } from 'vitest';
import {
  UnsupportedFeatureError,
  UpstreamProtocolError,
} from '../../../../../shared/src/providers/chat-types.ts';
import { googleImages } from '../../../../../shared/src/providers/google/media/images.ts';
import type { ImageRequest } from '../../../../../shared/src/providers/media-types.ts';

const PNG_B64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC';
const JPEG_B64 = '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAEBAQ==';

const target = (nativeModel: string) => ({
  baseUrl: 'https://generativelanguage.googleapis.com',
  apiKey: 'AIza-test',
  nativeModel,
});
const ask = (extra: Partial<ImageRequest> = {}): ImageRequest => ({
  prompt: 'A lighthouse at dusk',
  n: 1,
  ...extra,
});

function bodyOf(request: ImageRequest, model = 'imagen-4.0-generate-001'): Record<string, unknown> {
  const built = googleImages.request(request, target(model));
  expect(typeof built.body).toBe('string');
  return JSON.parse(built.body as string) as Record<string, unknown>;
}

function refusal(run: () => unknown): UnsupportedFeatureError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(UnsupportedFeatureError);
    return err as UnsupportedFeatureError;
  }
  throw new Error('expected UnsupportedFeatureError');
}

describe('Imagen request', () => {
  it('posts :predict with the key header, the prompt and n as sampleCount', () => {
    const built = googleImages.request(ask({ n: 3 }), target('models/imagen-4.0-generate-001'));
    expect(built.method).toBe('POST');
    expect(built.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/imagen-4.0-generate-001:predict',
    );
    expect(built.headers).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test' });
    expect(JSON.parse(built.body as string)).toEqual({
      instances: [{ prompt: 'A lighthouse at dusk' }],
      parameters: { sampleCount: 3, includeRaiReason: true },
    });
  });

  it.each([
    ['1024x1024', '1:1'],
    ['1536x1024', '4:3'],
    ['1024x1536', '3:4'],
    ['1792x1024', '16:9'],
    ['1024x1792', '9:16'],
    ['1280x720', '16:9'],
    ['800x600', '4:3'],
  ])('maps size %s to the nearest aspect ratio %s', (size, ratio) => {
    expect(bodyOf(ask({ size })).parameters).toMatchObject({ aspectRatio: ratio });
  });

  it('leaves the ratio to the model for size auto and no size', () => {
    expect(bodyOf(ask({ size: 'auto' })).parameters).not.toHaveProperty('aspectRatio');
    expect(bodyOf(ask()).parameters).not.toHaveProperty('aspectRatio');
  });

  it('takes an offered aspect_ratio, refuses others and contradictions', () => {
    expect(bodyOf(ask({ aspect_ratio: '9:16' })).parameters).toMatchObject({ aspectRatio: '9:16' });
    expect(refusal(() => bodyOf(ask({ aspect_ratio: '21:9' }))).param).toBe('aspect_ratio');
    expect(refusal(() => bodyOf(ask({ aspect_ratio: '1:1', size: '1792x1024' }))).param).toBe('size');
    expect(bodyOf(ask({ aspect_ratio: '16:9', size: '1792x1024' })).parameters).toMatchObject({
      aspectRatio: '16:9',
    });
  });

  it('asks for 2K above 2,097,152 pixels where the model renders it, and refuses it on Imagen 4 Fast', () => {
    expect(bodyOf(ask({ size: '2048x2048' })).parameters).toMatchObject({
      sampleImageSize: '2K',
      aspectRatio: '1:1',
    });
    expect(bodyOf(ask({ size: '2048x2048' }), 'imagen-4.0-ultra-generate-001').parameters).toMatchObject({
      sampleImageSize: '2K',
    });
    expect(bodyOf(ask({ size: '1408x768' })).parameters).not.toHaveProperty('sampleImageSize');
    expect(refusal(() => bodyOf(ask({ size: '2048x2048' }), 'imagen-4.0-fast-generate-001')).param).toBe(
      'size',
    );
  });

  it('refuses what Imagen cannot do as asked', () => {
    expect(refusal(() => bodyOf(ask({ n: 5 }))).param).toBe('n');
    expect(refusal(() => bodyOf(ask({ quality: 'high' }))).param).toBe('quality');
    expect(refusal(() => bodyOf(ask({ background: 'transparent' }))).param).toBe('background');
    expect(refusal(() => bodyOf(ask({ size: 'big' }))).param).toBe('size');
    expect(bodyOf(ask({ quality: 'auto', background: 'opaque' })).parameters).toMatchObject({
      sampleCount: 1,
    });
  });
});

describe('Imagen response', () => {
  it('returns the delivered PNGs in order, with the enhanced prompt as revisedPrompt', () => {
    const result = googleImages.response(
      {
        predictions: [
          { mimeType: 'image/png', bytesBase64Encoded: PNG_B64, prompt: 'A lighthouse at dusk, warm light' },
          { raiFilteredReason: 'filtered' },
          { bytesBase64Encoded: PNG_B64 },
        ],
      },
      ask({ n: 3 }),
    );
    expect(result).toEqual({
      images: [{ base64: PNG_B64, revisedPrompt: 'A lighthouse at dusk, warm light' }, { base64: PNG_B64 }],
    });
  });

  it('refuses the prompt when the safety filter removed every image, with the scrubbed reason', () => {
    const error = refusal(() =>
      googleImages.response(
        { predictions: [{ raiFilteredReason: 'Blocked. See https://ai.google.dev/policy for details.' }] },
        ask(),
      ),
    );
    expect(error.param).toBe('prompt');
    expect(error.message).toContain('Blocked');
    expect(error.message).not.toContain('ai.google.dev');
    expect(refusal(() => googleImages.response({}, ask())).message).toContain('safety filters');
  });

  it('rejects undocumented answers', () => {
    expect(() => googleImages.response({ predictions: 'nope' }, ask())).toThrow(UpstreamProtocolError);
    expect(() =>
      googleImages.response(
        { predictions: [{ bytesBase64Encoded: JPEG_B64, mimeType: 'image/jpeg' }] },
        ask(),
      ),
    ).toThrow(UpstreamProtocolError);
    expect(() => googleImages.response({ predictions: [{ bytesBase64Encoded: JPEG_B64 }] }, ask())).toThrow(
      /not a base64 PNG/,
    );
  });
});

describe('Gemini image models', () => {
  it('uses generateContent with IMAGE output and the nearest Gemini aspect ratio', () => {
    const built = googleImages.request(ask({ size: '1536x1024' }), target('gemini-2.5-flash-image'));
    expect(built.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash-image:generateContent',
    );
    expect(JSON.parse(built.body as string)).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'A lighthouse at dusk' }] }],
      generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '3:2' } },
    });
  });

  it('refuses n > 1 and sizes above its one megapixel', () => {
    expect(refusal(() => bodyOf(ask({ n: 2 }), 'gemini-2.5-flash-image')).param).toBe('n');
    expect(refusal(() => bodyOf(ask({ size: '2048x2048' }), 'gemini-2.5-flash-image')).param).toBe('size');
  });

  it('reads the inline PNG and the token usage, skipping text and thought parts', () => {
    const answer = {
      candidates: [
        {
          content: {
            parts: [
              { text: 'Here it is' },
              { inlineData: { mimeType: 'image/png', data: 'thought' }, thought: true },
              { inlineData: { mimeType: 'image/png', data: PNG_B64 } },
            ],
          },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { promptTokenCount: 6, candidatesTokenCount: 1290 },
    };
    expect(googleImages.response(answer, ask())).toEqual({
      images: [{ base64: PNG_B64 }],
      usage: { inputTokens: 6, outputTokens: 1290 },
    });
  });

  it('refuses the prompt when no image comes back', () => {
    expect(
      refusal(() => googleImages.response({ promptFeedback: { blockReason: 'SAFETY' } }, ask())).message,
    ).toContain('blocked (SAFETY)');
    const textOnly = { candidates: [{ content: { parts: [{ text: 'no' }] }, finishReason: 'IMAGE_SAFETY' }] };
    expect(refusal(() => googleImages.response(textOnly, ask())).message).toContain('IMAGE_SAFETY');
  });
});
