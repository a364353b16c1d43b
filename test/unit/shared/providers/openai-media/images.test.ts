import { describe, expect, it } from 'vitest';
import { UpstreamProtocolError } from '../../../../../shared/src/providers/chat-types.ts';
import type { ImageRequest } from '../../../../../shared/src/providers/media-types.ts';
import {
  imageModelRules,
  nearestSize,
} from '../../../../../shared/src/providers/openai/media/image-models.ts';
import {
  fromImageResponse,
  openaiImageAdapter,
  toImageRequestBody,
} from '../../../../../shared/src/providers/openai/media/images.ts';
import { dallE3Answer, gptImageAnswer, rejection, target } from './fixtures.ts';

const ask = (extra: Partial<ImageRequest> = {}): ImageRequest => ({ prompt: 'A red fox', n: 1, ...extra });

describe('OpenAI image request', () => {
  it('builds a JSON POST to <base>/images/generations with the Bearer key', () => {
    const request = openaiImageAdapter.request(ask(), target('gpt-image-1'));
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://api.openai.com/v1/images/generations');
    expect(request.headers).toMatchObject({
      authorization: 'Bearer sk-test',
      'content-type': 'application/json',
    });
    expect(JSON.parse(String(request.body))).toEqual({
      model: 'gpt-image-1',
      prompt: 'A red fox',
      n: 1,
      output_format: 'png',
    });
  });

  it('passes gpt-image-1 size, quality, background and n, never response_format', () => {
    const body = toImageRequestBody(
      ask({ n: 4, size: '1536x1024', quality: 'high', background: 'transparent' }),
      'gpt-image-1',
    );
    expect(body).toEqual({
      model: 'gpt-image-1',
      prompt: 'A red fox',
      n: 4,
      size: '1536x1024',
      quality: 'high',
      background: 'transparent',
      output_format: 'png',
    });
    expect(toImageRequestBody(ask({ size: 'auto', quality: 'auto' }), 'gpt-image-1-mini')).toMatchObject({
      size: 'auto',
      quality: 'auto',
    });
  });

  it('asks dall-e-3 for b64_json and maps quality high -> hd, the rest -> standard', () => {
    expect(toImageRequestBody(ask({ quality: 'high', size: '1792x1024' }), 'dall-e-3')).toEqual({
      model: 'dall-e-3',
      prompt: 'A red fox',
      n: 1,
      size: '1792x1024',
      quality: 'hd',
      response_format: 'b64_json',
    });
    for (const quality of ['low', 'medium', 'auto'] as const) {
      expect(toImageRequestBody(ask({ quality }), 'dall-e-3').quality).toBe('standard');
    }
  });

  it('refuses n > 1 on dall-e-3, naming n', () => {
    const error = rejection(() => toImageRequestBody(ask({ n: 2 }), 'dall-e-3'));
    expect(error.param).toBe('n');
    expect(error.message).toContain('at most 1 image ');
  });

  it('refuses a size the model does not have, naming size and listing the supported ones', () => {
    const onGpt = rejection(() => toImageRequestBody(ask({ size: '1792x1024' }), 'gpt-image-1'));
    expect(onGpt.param).toBe('size');
    expect(onGpt.message).toContain('1024x1024, 1536x1024, 1024x1536, auto');
    expect(rejection(() => toImageRequestBody(ask({ size: '1536x1024' }), 'dall-e-3')).param).toBe('size');
    expect(rejection(() => toImageRequestBody(ask({ size: '512x512' }), 'dall-e-3')).param).toBe('size');
    expect(rejection(() => toImageRequestBody(ask({ size: '1792x1024' }), 'dall-e-2')).param).toBe('size');
  });

  it('leaves size to the model when neither size nor aspect_ratio is given, and drops auto on DALL·E', () => {
    expect(toImageRequestBody(ask(), 'gpt-image-1')).not.toHaveProperty('size');
    expect(toImageRequestBody(ask({ size: 'auto' }), 'dall-e-3')).not.toHaveProperty('size');
  });

  it('maps aspect_ratio to the nearest size of the model when size is absent or auto', () => {
    const sizeFor = (aspect_ratio: string, model: string, size?: string) =>
      toImageRequestBody(ask({ aspect_ratio, ...(size ? { size } : {}) }), model).size;
    expect(sizeFor('1:1', 'gpt-image-1')).toBe('1024x1024');
    expect(sizeFor('16:9', 'gpt-image-1')).toBe('1536x1024');
    expect(sizeFor('4:3', 'gpt-image-1')).toBe('1536x1024');
    expect(sizeFor('9:16', 'gpt-image-1')).toBe('1024x1536');
    expect(sizeFor('2:3', 'gpt-image-1', 'auto')).toBe('1024x1536');
    expect(sizeFor('16:9', 'dall-e-3')).toBe('1792x1024');
    expect(sizeFor('9:16', 'dall-e-3')).toBe('1024x1792');
    expect(sizeFor('1:1', 'dall-e-2')).toBe('1024x1024');
    expect(sizeFor('2.39:1', 'dall-e-3')).toBe('1792x1024');
  });

  it('lets an explicit size win over aspect_ratio', () => {
    expect(toImageRequestBody(ask({ size: '1024x1024', aspect_ratio: '16:9' }), 'gpt-image-1').size).toBe(
      '1024x1024',
    );
  });

  it('refuses an aspect ratio that would change orientation, or is malformed', () => {
    const squareOnly = rejection(() => nearestSize('16:9', imageModelRules('dall-e-2'), 'dall-e-2'));
    expect(squareOnly.param).toBe('aspect_ratio');
    expect(squareOnly.message).toContain('1024x1024, 512x512, 256x256');
    expect(rejection(() => toImageRequestBody(ask({ aspect_ratio: 'wide' }), 'gpt-image-1')).param).toBe(
      'aspect_ratio',
    );
    expect(rejection(() => toImageRequestBody(ask({ aspect_ratio: '0:1' }), 'gpt-image-1')).param).toBe(
      'aspect_ratio',
    );
  });

  it('drops opaque/auto background on DALL·E and refuses transparent or unknown backgrounds', () => {
    expect(toImageRequestBody(ask({ background: 'opaque' }), 'dall-e-3')).not.toHaveProperty('background');
    expect(toImageRequestBody(ask({ background: 'auto' }), 'dall-e-2')).not.toHaveProperty('background');
    expect(rejection(() => toImageRequestBody(ask({ background: 'transparent' }), 'dall-e-3')).param).toBe(
      'background',
    );
    expect(rejection(() => toImageRequestBody(ask({ background: 'blue' }), 'gpt-image-1')).param).toBe(
      'background',
    );
  });

  it('refuses high quality on dall-e-2 and omits the others', () => {
    expect(rejection(() => toImageRequestBody(ask({ quality: 'high' }), 'dall-e-2')).param).toBe('quality');
    expect(toImageRequestBody(ask({ quality: 'low', n: 3 }), 'dall-e-2')).toEqual({
      model: 'dall-e-2',
      prompt: 'A red fox',
      n: 3,
      response_format: 'b64_json',
    });
  });

  it("refuses prompts longer than the model's limit", () => {
    expect(rejection(() => toImageRequestBody(ask({ prompt: 'x'.repeat(4001) }), 'dall-e-3')).param).toBe(
      'prompt',
    );
    expect(rejection(() => toImageRequestBody(ask({ prompt: 'x'.repeat(1001) }), 'dall-e-2')).param).toBe(
      'prompt',
    );
    expect(toImageRequestBody(ask({ prompt: 'x'.repeat(32000) }), 'gpt-image-1').prompt).toHaveLength(32000);
  });
});

describe('OpenAI image answer', () => {
  it('reads the gpt-image-1 answer with its token usage', () => {
    expect(fromImageResponse(gptImageAnswer, ask())).toEqual({
      images: [{ base64: 'iVBORw0KGgo=' }],
      usage: { inputTokens: 50, outputTokens: 50 },
    });
  });

  it('reads the dall-e-3 answer with its revised prompt', () => {
    expect(fromImageResponse(dallE3Answer, ask())).toEqual({
      images: [{ base64: 'iVBORw0KGgo=', revisedPrompt: 'A photograph of a white Siamese cat.' }],
    });
  });

  it('keeps a URL answer for the worker to fetch', () => {
    const answer = { created: 1, data: [{ url: 'https://files.example/img.png' }] };
    expect(fromImageResponse(answer, ask()).images).toEqual([{ url: 'https://files.example/img.png' }]);
  });

  it('throws UpstreamProtocolError on undocumented shapes and image counts', () => {
    const bad = [
      { data: [] },
      { created: 1, data: 'no' },
      { created: 1, data: [] },
      { created: 1, data: [{ revised_prompt: 'only' }] },
      { created: 1, data: [{ b64_json: 'a' }, { b64_json: 'b' }] },
    ];
    for (const json of bad) expect(() => fromImageResponse(json, ask())).toThrow(UpstreamProtocolError);
  });
});
