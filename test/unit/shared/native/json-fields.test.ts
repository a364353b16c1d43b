import { describe, expect, it } from 'vitest';
import {
  ANY_INDEX,
  findStrings,
  insertFirstMember,
  JsonFieldError,
  type JsonPath,
  replaceSpans,
} from '../../../../shared/src/native/json-fields.ts';
import { text, utf8 } from './chunking.ts';

function problemOf(body: string, paths: readonly JsonPath[] = [['model']]): string {
  try {
    findStrings(utf8(body), paths);
  } catch (error) {
    if (error instanceof JsonFieldError) return `${error.problem} ${error.at}`;
    throw error;
  }
  throw new Error('expected a JsonFieldError');
}

describe('findStrings', () => {
  it('finds a top-level string with its exact span, quotes included', () => {
    const body = '{"max_tokens": 10, "model" :  "claude-x", "stream": true}';
    const [found] = findStrings(utf8(body), [['model']]);
    expect(found?.value).toBe('claude-x');
    expect(body.slice(found?.start, found?.end)).toBe('"claude-x"');
    expect(found?.path).toEqual(['model']);
  });

  it('compares keys decoded and decodes the value', () => {
    const [found] = findStrings(utf8('{"mod\\u0065l":"gpt-\\u0035"}'), [['model']]);
    expect(found?.value).toBe('gpt-5');
  });

  it('ignores the same key nested elsewhere', () => {
    const body = '{"messages":[{"model":"x"}],"metadata":{"model":"y"},"model":"z"}';
    expect(findStrings(utf8(body), [['model']]).map((f) => f.value)).toEqual(['z']);
  });

  it('finds every array element of a wildcard path, in order', () => {
    const body = '{"requests":[{"model":"models/a","content":{}},{"content":{},"model":"models/b"}]}';
    const found = findStrings(utf8(body), [['requests', ANY_INDEX, 'model']]);
    expect(found.map((f) => [f.value, f.path])).toEqual([
      ['models/a', ['requests', 0, 'model']],
      ['models/b', ['requests', 1, 'model']],
    ]);
  });

  it('returns nothing when the field is absent', () => {
    expect(findStrings(utf8('{"text":"hi"}'), [['model_id']])).toEqual([]);
  });

  it('refuses a duplicated model key, even spelt with an escape', () => {
    expect(problemOf('{"model":"cheap","model":"dear"}')).toBe('duplicate_key model');
    expect(problemOf('{"model":"cheap","mod\\u0065l":"dear"}')).toBe('duplicate_key model');
    expect(problemOf('{"requests":[],"requests":[]}', [['requests', ANY_INDEX, 'model']])).toBe(
      'duplicate_key requests',
    );
  });

  it('allows duplicates of keys that lead nowhere wanted', () => {
    expect(findStrings(utf8('{"a":1,"a":2,"model":"m"}'), [['model']])).toHaveLength(1);
  });

  it('refuses a model that is not a string', () => {
    expect(problemOf('{"model":42}')).toBe('not_a_string model');
    expect(problemOf('{"model":null}')).toBe('not_a_string model');
  });

  it('refuses documents that are not JSON', () => {
    for (const body of [
      '',
      '{',
      '{"model":"x",}',
      '{"model":"x"} {}',
      "{'model':'x'}",
      '{"a":01}',
      '{"a":"tab\there"}',
      '{"a":"\\x"}',
      '{"a":tru}',
      '\uFEFF{"model":"x"}',
    ]) {
      expect(problemOf(body).startsWith('invalid_json')).toBe(true);
    }
  });

  it('accepts every JSON value form', () => {
    const body =
      ' {"a":[1,-0.5e+3,2E2,true,false,null,{},[],"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9"],"model":"m"} ';
    expect(findStrings(utf8(body), [['model']])[0]?.value).toBe('m');
  });

  it('refuses nesting deeper than its limit instead of overflowing the stack', () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expect(problemOf(deep).startsWith('too_deep')).toBe(true);
  });
});

describe('replaceSpans and insertFirstMember', () => {
  it('changes only the model value: key order, spacing, escapes and invalid UTF-8 elsewhere stay', () => {
    const head = utf8('{"z":1, "model":\t"claude-sonnet",\n "text":"caf\\u00e9 \u00e9 ');
    const invalid = Uint8Array.of(0xff, 0xfe);
    const tail = utf8('", "a":1.50e1}');
    const body = new Uint8Array([...head, ...invalid, ...tail]);
    const [found] = findStrings(body, [['model']]);
    if (found === undefined) throw new Error('not found');
    const out = replaceSpans(body, [
      { start: found.start, end: found.end, text: '"claude-sonnet-4-5-20250929"' },
    ]);
    const expected = new Uint8Array([
      ...utf8('{"z":1, "model":\t"claude-sonnet-4-5-20250929",\n "text":"caf\\u00e9 \u00e9 '),
      ...invalid,
      ...tail,
    ]);
    expect(Buffer.from(out).equals(Buffer.from(expected))).toBe(true);
  });

  it('inserts a first member into an object, empty or not', () => {
    expect(text(insertFirstMember(utf8(' {"text":"hi"}'), 'model_id', '"m"'))).toBe(
      ' {"model_id":"m","text":"hi"}',
    );
    expect(text(insertFirstMember(utf8('{ }'), 'model_id', '"m"'))).toBe('{"model_id":"m" }');
    expect(() => insertFirstMember(utf8('[1]'), 'model_id', '"m"')).toThrow(JsonFieldError);
  });
});
