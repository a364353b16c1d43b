import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { RequestLogger } from '../../../../api/src/plugins/request-logger.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';

function requestLogger(level: string, options = {}) {
  const { logger, lines } = captureLogger(level);
  const child = vi.spyOn(logger, 'child');
  const log = new RequestLogger(logger as FastifyBaseLogger, { requestId: 'req_1' }, options);
  return { log, lines, child };
}

describe('RequestLogger', () => {
  it('makes no child logger while the level writes nothing', () => {
    const { log, lines, child } = requestLogger('warn');
    log.setBindings({ keyId: 'key_1' });
    log.info({ path: '/v1/chat/completions' }, 'served');
    log.debug('detail');
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(log.level).toBe('warn');
    expect(child).not.toHaveBeenCalled();
    expect(lines()).toEqual([]);
  });

  it('writes its first line through a child that carries every binding given before', () => {
    const { log, lines, child } = requestLogger('warn');
    log.setBindings({ keyId: 'key_1', accountId: 'acc_1' });
    log.warn({ status: 502 }, 'upstream failed');
    log.setBindings({ model: 'm' });
    log.error(new Error('boom'));
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines()).toMatchObject([
      {
        requestId: 'req_1',
        keyId: 'key_1',
        accountId: 'acc_1',
        status: 502,
        msg: 'upstream failed',
        level: 40,
      },
      { requestId: 'req_1', keyId: 'key_1', model: 'm', level: 50, err: { message: 'boom' } },
    ]);
    expect(log.bindings()).toMatchObject({ requestId: 'req_1', keyId: 'key_1', model: 'm' });
  });

  it('gives a child of its own the bindings given so far', () => {
    const { log, lines } = requestLogger('warn');
    log.setBindings({ keyId: 'key_1' });
    log.child({ step: 'upstream' }).warn('slow');
    expect(lines()).toMatchObject([{ requestId: 'req_1', keyId: 'key_1', step: 'upstream', msg: 'slow' }]);
  });

  it('takes its child at once for a route with its own level, and logs at that level', () => {
    const { log, lines, child } = requestLogger('warn', { level: 'debug' });
    expect(child).toHaveBeenCalledTimes(1);
    expect(log.isLevelEnabled('debug')).toBe(true);
    log.debug('route detail');
    expect(lines()).toMatchObject([{ requestId: 'req_1', msg: 'route detail', level: 20 }]);
  });
});
