import { describe, expect, it } from 'vitest';
import { presentedApiKey } from '../../../../api/src/admission/key-carriers.ts';

function request(headers: Record<string, string | string[]>, query: Record<string, unknown> = {}) {
  return { headers, query } as Parameters<typeof presentedApiKey>[0];
}

describe('presentedApiKey', () => {
  it('reads each carrier alone', () => {
    expect(presentedApiKey(request({ authorization: 'Bearer hk-a' }))).toBe('hk-a');
    expect(presentedApiKey(request({ 'x-api-key': 'hk-b' }))).toBe('hk-b');
    expect(presentedApiKey(request({ 'x-goog-api-key': 'hk-c' }))).toBe('hk-c');
    expect(presentedApiKey(request({ 'xi-api-key': 'hk-d' }))).toBe('hk-d');
    expect(presentedApiKey(request({ 'x-key': 'hk-e' }))).toBe('hk-e');
    expect(presentedApiKey(request({}, { key: 'hk-f' }))).toBe('hk-f');
  });

  it('uses the first carrier in the spec order when several are present', () => {
    const all = {
      authorization: 'Bearer hk-1',
      'x-api-key': 'hk-2',
      'x-goog-api-key': 'hk-3',
      'xi-api-key': 'hk-4',
      'x-key': 'hk-5',
    };
    expect(presentedApiKey(request(all, { key: 'hk-6' }))).toBe('hk-1');
    const { authorization: _a, ...withoutBearer } = all;
    expect(presentedApiKey(request(withoutBearer, { key: 'hk-6' }))).toBe('hk-2');
    expect(presentedApiKey(request({ 'xi-api-key': 'hk-4', 'x-key': 'hk-5' }, { key: 'hk-6' }))).toBe('hk-4');
    expect(presentedApiKey(request({ 'x-key': 'hk-5' }, { key: 'hk-6' }))).toBe('hk-5');
  });

  it('treats the Bearer scheme case-insensitively and trims white space', () => {
    expect(presentedApiKey(request({ authorization: '  bearer   hk-a  ' }))).toBe('hk-a');
    expect(presentedApiKey(request({ 'x-api-key': '  hk-b ' }))).toBe('hk-b');
  });

  it('skips empty carriers and other authorization schemes', () => {
    expect(presentedApiKey(request({ authorization: 'Bearer ', 'x-api-key': 'hk-b' }))).toBe('hk-b');
    expect(presentedApiKey(request({ authorization: 'Basic aGs6eA==', 'x-key': 'hk-e' }))).toBe('hk-e');
    expect(presentedApiKey(request({ 'x-api-key': '   ' }, { key: 'hk-f' }))).toBe('hk-f');
    expect(presentedApiKey(request({}, { key: '' }))).toBeUndefined();
    expect(presentedApiKey(request({}))).toBeUndefined();
  });

  it('takes the first value of a repeated query key and ignores non-strings', () => {
    expect(presentedApiKey(request({}, { key: ['hk-1', 'hk-2'] }))).toBe('hk-1');
    expect(presentedApiKey(request({}, { key: { nested: 'hk-1' } }))).toBeUndefined();
  });

  it('passes a malformed value on as it is, for check 1 or 2 to refuse', () => {
    expect(presentedApiKey(request({ authorization: 'Bearer hk-a hk-b' }))).toBe('hk-a hk-b');
    expect(presentedApiKey(request({ 'x-api-key': 'sk-not-ours' }))).toBe('sk-not-ours');
  });
});
