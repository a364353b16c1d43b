import { describe, expect, it } from 'vitest';
import { installSecretScrubber } from '../../../../shared/src/upstream/secret-scrubber.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';

describe('createLogger', () => {
  it('redacts keys, credentials and prompts', () => {
    const { logger, lines } = captureLogger();
    logger.info({
      req: {
        headers: {
          authorization: 'Bearer hk-secret-1',
          'x-api-key': 'hk-secret-2',
          'xi-api-key': 'hk-secret-3',
        },
      },
      body: { messages: [{ role: 'user', content: 'my diary' }], prompt: 'a private prompt' },
      s3: { secretAccessKey: 'aws-secret' },
    });
    logger.flush();
    const text = JSON.stringify(lines());
    for (const secret of [
      'hk-secret-1',
      'hk-secret-2',
      'hk-secret-3',
      'my diary',
      'a private prompt',
      'aws-secret',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });

  it('binds child fields such as the request id', () => {
    const { logger, lines } = captureLogger();
    logger.child({ requestId: 'req_1' }).warn('hello');
    expect(lines()[0]).toMatchObject({ requestId: 'req_1', msg: 'hello', level: 40 });
  });

  it('serializes errors under err', () => {
    const { logger, lines } = captureLogger();
    logger.error({ err: new Error('boom') }, 'failed');
    expect(lines()[0]).toMatchObject({ err: { message: 'boom', type: 'Error' } });
  });

  it('scrubs configured secrets by value from every part of a line, even for a logger made before', () => {
    const { logger, lines } = captureLogger();
    const key = 'abcdefghijklmnopqrstuvwxyzABCDEF';
    installSecretScrubber({
      providers: { openai: { baseUrl: 'http://o', apiKey: key } } as never,
      compatibleUpstreams: {},
      adminToken: undefined,
      s3: { secretAccessKey: undefined } as never,
    });
    logger.info({ status: 400, detail: { echoed: `key=${key}` } }, `Incorrect API key provided: ${key}`);
    logger.error({ err: new Error(`upstream said ${encodeURIComponent(key)}`) }, 'request failed');
    logger.warn('plain line, Bearer sk-proj-0123456789abcdef');
    const text = JSON.stringify(lines());
    expect(text).not.toContain(key);
    expect(text).not.toContain('sk-proj');
    expect(lines()[0]).toMatchObject({
      msg: 'Incorrect API key provided: [redacted]',
      detail: { echoed: 'key=[redacted]' },
    });
    expect(lines()[1]).toMatchObject({ err: { message: 'upstream said [redacted]' } });
    expect(lines()[2]).toMatchObject({ msg: 'plain line, Bearer [redacted]' });
  });
});
