import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../../../../shared/src/catalogue/load-catalogue.ts';
import { AppError } from '../../../../../shared/src/errors/app-error.ts';
import {
  geminiUpstreamQuery,
  isSseQuery,
  mapGeminiRequest,
  parseGeminiPath,
} from '../../../../../shared/src/native/google/model-path.ts';
import { text, utf8 } from '../chunking.ts';

const catalogue = loadCatalogue();

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof AppError) return `${error.status} ${error.code}`;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('Gemini paths', () => {
  it('splits version, model and method', () => {
    expect(parseGeminiPath('/v1beta/models/gemini-2.5-flash:streamGenerateContent')).toEqual({
      version: 'v1beta',
      model: 'gemini-2.5-flash',
      method: 'streamGenerateContent',
    });
    expect(parseGeminiPath('/v1beta/models/gemini%2D2.5-pro:countTokens').model).toBe('gemini-2.5-pro');
  });

  it('answers 404 for other paths and methods', () => {
    for (const path of [
      '/v1beta/models/gemini-2.5-flash:predict',
      '/v1beta/models/gemini-2.5-flash',
      '/v1beta/tunedModels/x:generateContent',
      '/v1beta/models/a/b:generateContent',
      '/v1beta/models/%ZZ:generateContent',
    ]) {
      expect(codeOf(() => parseGeminiPath(path))).toBe('404 invalid_request_error');
    }
  });

  it('maps the path and leaves a generateContent body as sent', () => {
    const body = utf8('{"contents":[{"parts":[{"text":"hi"}]}]}');
    const mapped = mapGeminiRequest('/v1beta/models/gemini-flash:generateContent', body, catalogue);
    const [route] = mapped.routes;
    if (route === undefined) throw new Error('no route');
    expect(mapped.model.id).toBe('google/gemini-2.5-flash');
    expect(mapped.path(route)).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(mapped.body(route)).toBe(body);
  });

  it('rewrites the models named inside batchEmbedContents and countTokens bodies', () => {
    const batch =
      '{"requests": [{"model": "models/gemini-embedding", "content": {"parts": [{"text": "a"}]}},\n {"content": {"parts": [{"text": "b"}]}, "model": "models/gemini-embedding"}]}';
    const mapped = mapGeminiRequest(
      '/v1beta/models/gemini-embedding:batchEmbedContents',
      utf8(batch),
      catalogue,
    );
    const [route] = mapped.routes;
    if (route === undefined) throw new Error('no route');
    expect(mapped.model.id).toBe('google/gemini-embedding-001');
    expect(text(mapped.body(route))).toBe(
      batch.replaceAll('models/gemini-embedding"', 'models/gemini-embedding-001"'),
    );

    const count = '{"generateContentRequest":{"model":"models/gemini-pro","contents":[]}}';
    const counted = mapGeminiRequest('/v1beta/models/gemini-pro:countTokens', utf8(count), catalogue);
    expect(text(counted.body(counted.routes[0] as never))).toBe(
      count.replace('models/gemini-pro', 'models/gemini-2.5-pro'),
    );
  });

  it('accepts another spelling of the path model in the body', () => {
    const batch = '{"requests":[{"model":"models/gemini-embedding-001","content":{"parts":[]}}]}';
    const mapped = mapGeminiRequest(
      '/v1beta/models/gemini-embedding:batchEmbedContents',
      utf8(batch),
      catalogue,
    );
    expect(text(mapped.body(mapped.routes[0] as never))).toBe(batch);
  });

  it('refuses a body naming another model than the path, and a chat model on an embedding method', () => {
    const batch = '{"requests":[{"model":"models/other","content":{"parts":[]}}]}';
    expect(
      codeOf(() =>
        mapGeminiRequest('/v1beta/models/gemini-embedding-001:batchEmbedContents', utf8(batch), catalogue),
      ),
    ).toBe('400 invalid_request_error');
    expect(
      codeOf(() => mapGeminiRequest('/v1beta/models/gemini-2.5-flash:embedContent', utf8('{}'), catalogue)),
    ).toBe('404 model_not_found');
  });
});

describe('Gemini queries', () => {
  it('drops the key and keeps the rest as sent', () => {
    expect(geminiUpstreamQuery('?alt=sse&key=hk-secret')).toBe('?alt=sse');
    expect(geminiUpstreamQuery('?k%65y=hk-secret&alt=sse&x=1')).toBe('?alt=sse&x=1');
    expect(geminiUpstreamQuery('?key=hk')).toBe('');
    expect(geminiUpstreamQuery('')).toBe('');
  });

  it('tells the SSE framing from the JSON-array one', () => {
    expect(isSseQuery('?alt=sse')).toBe(true);
    expect(isSseQuery('?key=x&alt=sse')).toBe(true);
    expect(isSseQuery('?alt=json')).toBe(false);
    expect(isSseQuery('')).toBe(false);
  });
});
