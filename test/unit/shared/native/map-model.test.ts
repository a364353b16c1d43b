import { describe, expect, it } from 'vitest';
import type { CatalogueModel } from '../../../../shared/src/catalogue/catalogue.ts';
import { createCatalogue } from '../../../../shared/src/catalogue/catalogue.ts';
import { loadCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';
import { AppError } from '../../../../shared/src/errors/app-error.ts';
import { mapAnthropicModel } from '../../../../shared/src/native/anthropic/model-name.ts';
import { mapResponsesModel } from '../../../../shared/src/native/openai/model-name.ts';
import { resolveNativeModel } from '../../../../shared/src/native/resolve-native-model.ts';
import { text, utf8 } from './chunking.ts';

const catalogue = loadCatalogue();

function statusOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof AppError) return `${error.status} ${error.code}`;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('resolveNativeModel', () => {
  it('resolves by id, alias, native id and route native id, with the routes of the provider only', () => {
    for (const name of [
      'anthropic/claude-sonnet-4-5',
      'sonnet',
      'claude-sonnet-4-5-20250929',
      'claude-sonnet-4-5',
    ]) {
      const match = resolveNativeModel(catalogue, 'anthropic', name, ['chat']);
      expect(match.model.id).toBe('anthropic/claude-sonnet-4-5');
      expect(match.routes.map((r) => r.native_id)).toEqual([
        'claude-sonnet-4-5-20250929',
        'claude-sonnet-4-5',
      ]);
    }
    expect(resolveNativeModel(catalogue, 'openai', 'gpt-5-2025-08-07', ['chat']).model.id).toBe(
      'openai/gpt-5',
    );
    expect(resolveNativeModel(catalogue, 'openai', 'whisper-1', ['stt']).routes).toEqual([
      { provider: 'openai', native_id: 'whisper-1' },
    ]);
  });

  it('finds nothing through another provider, of another type, or disabled', () => {
    expect(statusOf(() => resolveNativeModel(catalogue, 'openai', 'claude-sonnet-4-5', ['chat']))).toBe(
      '404 model_not_found',
    );
    expect(statusOf(() => resolveNativeModel(catalogue, 'openai', 'text-embedding-3-small', ['chat']))).toBe(
      '404 model_not_found',
    );
    const model = catalogue.get('anthropic/claude-haiku-4-5') as CatalogueModel;
    const disabled = createCatalogue([{ ...model, enabled: false }], catalogue.exchangeRate);
    expect(statusOf(() => resolveNativeModel(disabled, 'anthropic', 'haiku', ['chat']))).toBe(
      '404 model_not_found',
    );
    expect(statusOf(() => resolveNativeModel(catalogue, 'anthropic', '', ['chat']))).toBe(
      '400 model_required',
    );
  });

  it('treats a name two models share at the same level as unknown', () => {
    const model = catalogue.get('anthropic/claude-haiku-4-5') as CatalogueModel;
    const twin = { ...model, id: 'anthropic/twin', aliases: [] };
    const shared = createCatalogue([model, twin], catalogue.exchangeRate);
    expect(statusOf(() => resolveNativeModel(shared, 'anthropic', model.native_id, ['chat']))).toBe(
      '404 model_not_found',
    );
    expect(resolveNativeModel(shared, 'anthropic', 'haiku', ['chat']).model.id).toBe(model.id);
  });
});

describe('JSON body model mapping', () => {
  it('rewrites only the model value of a Messages body, byte for byte elsewhere', () => {
    const sent =
      '{\n  "max_tokens": 1024,\n  "model": "sonnet",\n  "messages": [{"role": "user", "content": "Gr\\u00fc\u00df dich \ud83d\ude00"}],\n  "stream": true\n}';
    const mapped = mapAnthropicModel(utf8(sent), catalogue);
    expect(mapped.model.id).toBe('anthropic/claude-sonnet-4-5');
    expect(mapped.requested).toBe('sonnet');
    const [primary, fallback] = mapped.routes;
    if (primary === undefined || fallback === undefined) throw new Error('two routes expected');
    expect(text(mapped.body(primary))).toBe(sent.replace('"sonnet"', '"claude-sonnet-4-5-20250929"'));
    expect(text(mapped.body(fallback))).toBe(sent.replace('"sonnet"', '"claude-sonnet-4-5"'));
  });

  it('maps a Responses body', () => {
    const sent = '{"model":"gpt5","input":"hi","reasoning":{"effort":"low"}}';
    const mapped = mapResponsesModel(utf8(sent), catalogue);
    expect(mapped.routes.map((route) => text(mapped.body(route)))).toEqual([
      '{"model":"gpt-5","input":"hi","reasoning":{"effort":"low"}}',
      '{"model":"gpt-5-2025-08-07","input":"hi","reasoning":{"effort":"low"}}',
    ]);
  });

  it('answers 400 for broken bodies and ambiguous or missing models, 404 for unknown ones', () => {
    expect(statusOf(() => mapAnthropicModel(utf8('{"model":"sonnet"'), catalogue))).toBe(
      '400 invalid_request_error',
    );
    expect(statusOf(() => mapAnthropicModel(utf8('{"model":"haiku","model":"opus"}'), catalogue))).toBe(
      '400 invalid_request_error',
    );
    expect(statusOf(() => mapAnthropicModel(utf8('{"model":["sonnet"]}'), catalogue))).toBe(
      '400 invalid_request_error',
    );
    expect(statusOf(() => mapAnthropicModel(utf8('{"messages":[]}'), catalogue))).toBe('400 model_required');
    expect(statusOf(() => mapAnthropicModel(utf8('{"model":"claude-9"}'), catalogue))).toBe(
      '404 model_not_found',
    );
  });
});
