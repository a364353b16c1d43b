/**
 * The router's order: enabled channels serving the model, lowest priority value first, weighted
 * random within a priority; open scopes skipped, half-open ones offered as their probe; outcomes
 * reported to the breaker and refusals to auto-disable.
 */
import { describe, expect, it } from 'vitest';
import type { LiveChannel } from '../../../../shared/src/channels/channel.ts';
import type { ScopeView } from '../../../../shared/src/channels/channel-breaker.ts';
import { snapshotOf } from '../../../../shared/src/channels/channel-registry.ts';
import { type BreakerView, ChannelRouter } from '../../../../shared/src/channels/channel-router.ts';
import { failureFromStatus, failureFromTransport } from '../../../../shared/src/upstream/upstream-failure.ts';

function channel(id: string, fields: Partial<LiveChannel> = {}): LiveChannel {
  return {
    id,
    provider: 'openai',
    name: id,
    baseUrl: `http://${id}.test`,
    apiKey: `sk-${id}-secret`,
    keyLast4: 'cret',
    weight: 1,
    priority: 0,
    models: null,
    enabled: true,
    autoDisabledReason: null,
    source: 'api',
    ...fields,
  };
}

function breaker(views: Record<string, ScopeView> = {}) {
  const reports: Array<[string, string, boolean?]> = [];
  const view: BreakerView = {
    get anyOpen() {
      return Object.keys(views).length > 0;
    },
    view: (scope) => views[scope] ?? 'closed',
    hasHistory: (scope) => scope in views,
    succeeded: (scope) => void reports.push(['ok', scope]),
    failed: (scope, failure, probe) => void reports.push([failure.reason, scope, probe]),
    takeProbe: async () => true,
  };
  return { view, reports };
}

function router(channels: LiveChannel[], views: Record<string, ScopeView> = {}, random = Math.random) {
  const b = breaker(views);
  const disabled: string[] = [];
  const r = new ChannelRouter(
    () => snapshotOf(channels),
    b.view,
    { record: () => undefined },
    { autoDisable: async (c) => void disabled.push(c.id) },
    random,
  );
  return { r, reports: b.reports, disabled };
}

const ids = (attempts: Array<{ id: string }>) => attempts.map((a) => a.id);

describe('channel router', () => {
  it('tries the lowest priority value first and skips disabled, refused and other-model channels', () => {
    const { r } = router([
      channel('late', { priority: 5 }),
      channel('off', { enabled: false }),
      channel('refused', { autoDisabledReason: 'HTTP 401' }),
      channel('other', { models: new Set(['openai/gpt-other']) }),
      channel('mine', { models: new Set(['openai/gpt-x']) }),
      channel('first', { priority: -1 }),
      channel('elsewhere', { provider: 'anthropic' }),
    ]);
    expect(ids(r.candidates('openai', 'openai/gpt-x'))).toEqual(['first', 'mine', 'late']);
    expect(r.isConfigured('openai')).toBe(true);
    expect(r.isConfigured('google')).toBe(false);
    expect(router([channel('off', { enabled: false })]).r.isConfigured('openai')).toBe(false);
  });

  it('splits first choices by weight within a priority', () => {
    const { r } = router([channel('heavy', { weight: 3 }), channel('light', { weight: 1 })]);
    const firsts = { heavy: 0, light: 0 };
    for (let i = 0; i < 4_000; i += 1) firsts[r.candidates('openai', 'm')[0]?.id as 'heavy' | 'light'] += 1;
    expect(firsts.heavy / 4_000).toBeGreaterThan(0.7);
    expect(firsts.heavy / 4_000).toBeLessThan(0.8);
  });

  it('skips an open channel or channel-and-model, and offers a half-open one as its probe', () => {
    const { r } = router([channel('a'), channel('b'), channel('c'), channel('d')], {
      a: 'open',
      'b|m': 'open',
      c: 'half_open',
      'd|m': 'half_open',
    });
    const attempts = r.candidates('openai', 'm');
    expect(ids(attempts).sort()).toEqual(['c', 'd']);
    expect(Object.fromEntries(attempts.map((a) => [a.id, a.probeScope]))).toEqual({ c: 'c', d: 'd|m' });
    expect(ids(r.candidates('openai', 'other')).sort()).toEqual(['b', 'c', 'd']);
  });

  it('reports failures to the channel, a 404 to the channel and model, and nothing for the request’s own faults', () => {
    const { r, reports, disabled } = router([channel('a')], { a: 'half_open' });
    const [attempt] = r.candidates('openai', 'm');
    attempt?.failed(failureFromStatus('openai', 503, 'down'));
    attempt?.failed(failureFromStatus('openai', 404, 'no such model'));
    attempt?.failed(failureFromStatus('openai', 400, 'bad request'));
    attempt?.failed(failureFromTransport('openai', 'aborted'));
    attempt?.failed(failureFromStatus('openai', 502, 'refused', { credentialRejected: true }));
    expect(reports).toEqual([
      ['HTTP 503: down', 'a', true],
      ['HTTP 404: no such model', 'a|m', false],
    ]);
    expect(disabled).toEqual(['a']);
    attempt?.succeeded();
    expect(reports.at(-1)).toEqual(['ok', 'a']);
  });

  it('finds a channel by id whatever its health (a video polled where it was submitted)', () => {
    const { r } = router([channel('a', { enabled: false })], { a: 'open' });
    expect(r.attemptOn('a', 'm')?.channel.baseUrl).toBe('http://a.test');
    expect(r.attemptOn('gone', 'm')).toBeUndefined();
  });
});
