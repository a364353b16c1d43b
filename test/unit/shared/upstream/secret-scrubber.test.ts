import { describe, expect, it } from 'vitest';
import {
  configuredSecrets,
  createSecretScrubber,
  installSecretScrubber,
  MIN_SAFE_SECRET_LENGTH,
  REDACTED,
  type SecretSources,
  scrubLogLine,
  scrubSecrets,
  secretScrubber,
} from '../../../../shared/src/upstream/secret-scrubber.ts';

const LETTERS_KEY = 'abcdefghijklmnopqrstuvwxyzABCDEF';
const SPECIAL_KEY = 'k3y/with+special=chars&more?#%"\\';

/** A configuration holding only the given secrets. */
function sources(overrides: {
  openai?: string;
  mistral?: string;
  compatible?: string;
  adminToken?: string;
  s3Secret?: string;
  redisUrl?: string;
}): SecretSources {
  const upstream = (apiKey: string | undefined) => ({ baseUrl: 'http://127.0.0.1:1', apiKey });
  return {
    providers: {
      openai: upstream(overrides.openai),
      anthropic: upstream(undefined),
      google: upstream(undefined),
      deepseek: upstream(undefined),
      xai: upstream(undefined),
      mistral: upstream(overrides.mistral),
      groq: upstream(undefined),
      elevenlabs: upstream(undefined),
      runway: upstream(undefined),
    },
    compatibleUpstreams: overrides.compatible === undefined ? {} : { local: upstream(overrides.compatible) },
    adminToken: overrides.adminToken,
    s3: {
      endpoint: undefined,
      region: 'us-east-1',
      accessKeyId: overrides.s3Secret === undefined ? undefined : 'AKIAEXAMPLE',
      secretAccessKey: overrides.s3Secret,
      bucket: 'b',
      forcePathStyle: true,
    },
    redis: { mode: 'single', url: overrides.redisUrl ?? 'redis://127.0.0.1:6379' },
  };
}

describe('createSecretScrubber: by value', () => {
  it('replaces a letters-only key that no shape would catch, every occurrence', () => {
    const scrubber = createSecretScrubber([LETTERS_KEY]);
    expect(scrubber.scrub(`Incorrect API key provided: ${LETTERS_KEY}. (${LETTERS_KEY})`)).toBe(
      'Incorrect API key provided: [redacted]. ([redacted])',
    );
    expect(scrubber.secretCount).toBe(1);
  });

  it('replaces the percent-encoded, form-encoded, JSON-escaped and base64 forms', () => {
    const scrubber = createSecretScrubber([SPECIAL_KEY, LETTERS_KEY]);
    const component = encodeURIComponent(SPECIAL_KEY);
    const forms = [
      SPECIAL_KEY,
      component,
      component.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
      encodeURI(SPECIAL_KEY),
      new URLSearchParams({ k: SPECIAL_KEY }).toString().slice(2),
      JSON.stringify(SPECIAL_KEY).slice(1, -1),
    ];
    for (const form of forms) {
      const scrubbed = scrubber.scrub(`before ${form} after`);
      expect(scrubbed, form).toBe('before [redacted] after');
    }
    // Base64 at every alignment, standard and URL-safe: the secret inside a `user:key` blob.
    for (const prefix of ['', 'a', 'ab', 'api:']) {
      const blob = Buffer.from(`${prefix}${LETTERS_KEY}`).toString('base64');
      for (const encoded of [blob, blob.replace(/\+/g, '-').replace(/\//g, '_')]) {
        const scrubbed = scrubber.scrub(`Basic ${encoded}`);
        expect(scrubbed, prefix).toContain(REDACTED);
        // What remains around the marker is at most the prefix's characters and one edge character.
        expect(scrubbed.replace(REDACTED, '').length, prefix).toBeLessThanOrEqual(
          'Basic '.length + Math.ceil((prefix.length * 8) / 6) + 4,
        );
      }
    }
  });

  it('replaces overlapping and nested keys entirely, the longest first', () => {
    const inner = 'ZZZZinnerkeyZZZZ';
    const outer = `prefix${inner}suffix`;
    const a = 'overlapAAAA1111';
    const b = '1111BBBBoverlap2';
    const scrubber = createSecretScrubber([inner, outer, a, b]);
    expect(scrubber.scrub(`x ${outer} y ${inner} z`)).toBe('x [redacted] y [redacted] z');
    // `a` ends where `b` begins: neither survives in part.
    expect(scrubber.scrub(`x overlapAAAA1111BBBBoverlap2 y`)).toBe('x [redacted] y');
    expect(scrubber.scrub(`${a}${b}`)).toBe(REDACTED);
  });

  it('scrubs a secret shorter than the safe minimum too (with ordinary text around it)', () => {
    const short = 'qwerty';
    expect(short.length).toBeLessThan(MIN_SAFE_SECRET_LENGTH);
    const scrubber = createSecretScrubber([short]);
    expect(scrubber.scrub('the key qwerty was refused; qwertyuiop')).toBe(
      'the key [redacted] was refused; [redacted]uiop',
    );
  });

  it('with no secrets, changes only key shapes; empty and repeated values are ignored', () => {
    const scrubber = createSecretScrubber(['', undefined, null]);
    expect(scrubber.secretCount).toBe(0);
    expect(scrubber.scrub('plain text, nothing secret')).toBe('plain text, nothing secret');
    expect(scrubber.scrub('key sk-abcdef123 refused')).toBe('key [redacted] refused');
    expect(createSecretScrubber([LETTERS_KEY, LETTERS_KEY]).secretCount).toBe(1);
  });
});

describe('createSecretScrubber: key shapes', () => {
  const scrubber = createSecretScrubber([]);

  it.each([
    ['OpenAI', 'sk-proj-AbCdEf0123456789', '[redacted]'],
    ['Anthropic', 'sk-ant-api03-AbCdEf_123-xyz', '[redacted]'],
    ['ElevenLabs', 'sk_0123456789abcdef0123456789abcdef', '[redacted]'],
    ['Google', 'AIzaSyA1234567890abcdefghijk', '[redacted]'],
    ['xAI', 'xai-AbCdEf0123456789', '[redacted]'],
    ['Groq', 'gsk_AbCdEf0123456789', '[redacted]'],
    ['ours', 'hk-0123456789abcdefghijABCDEFGHIJ0123456789xyz', '[redacted]'],
    ['Runway', `key_${'ab12'.repeat(16)}`, '[redacted]'],
    ['Bearer', 'Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig', 'Bearer [redacted]'],
    ['Bearer (letters only, long)', 'Bearer abcdefghijklmnopqrst', 'Bearer [redacted]'],
    ['query key', 'GET /v1beta/models?key=AbC123xyz&alt=sse', 'GET /v1beta/models?key=[redacted]&alt=sse'],
    ['query api_key', 'POST /x?api_key=letters', 'POST /x?api_key=[redacted]'],
    ['header', 'x-goog-api-key: letterskey', 'x-goog-api-key: [redacted]'],
    ['URL password', 'redis://user:p4ss@host:6379', 'redis://user:[redacted]@host:6379'],
  ])('%s', (_name, text, expected) => {
    expect(scrubber.scrub(text)).toBe(expected);
  });

  it('leaves ordinary words and the gateway’s own identifiers alone', () => {
    const text = 'Missing Bearer token; see the task-queue and the monkey=1 desk-lamp, tokens=5';
    expect(scrubber.scrub(text)).toBe(text);
    const ids = '{"keyId":"key_ba6b6e0cc38d5aa922a70b31","accountId":"acct_98466e728c097e1d8d4f5280"}';
    expect(scrubber.scrub(ids)).toBe(ids);
    expect(scrubber.scrubJsonLine(`${ids}\n`)).toBe(`${ids}\n`);
  });
});

describe('createSecretScrubber: JSON log lines', () => {
  const scrubber = createSecretScrubber([LETTERS_KEY, SPECIAL_KEY]);

  it('returns a line without secrets unchanged (same string)', () => {
    const line = '{"level":30,"time":1,"msg":"request completed","requestId":"req_1"}\n';
    expect(scrubber.scrubJsonLine(line)).toBe(line);
  });

  it('scrubs every string, names and numbers included, and stays one JSON line', () => {
    const line = `${JSON.stringify({
      level: 30,
      msg: `The provider rejected the request: Incorrect API key provided: ${LETTERS_KEY}`,
      err: { message: `bad ${SPECIAL_KEY}`, stack: `Error: bad ${encodeURIComponent(SPECIAL_KEY)}\n at x` },
      [LETTERS_KEY]: 1,
      auth: 'Bearer sk-abcdefghijklmnop',
    })}\n`;
    const scrubbed = scrubber.scrubJsonLine(line);
    expect(scrubbed.endsWith('\n')).toBe(true);
    const parsed = JSON.parse(scrubbed) as Record<string, unknown>;
    expect(parsed.msg).toBe('The provider rejected the request: Incorrect API key provided: [redacted]');
    expect(parsed.err).toEqual({ message: 'bad [redacted]', stack: 'Error: bad [redacted]\n at x' });
    expect(parsed[REDACTED]).toBe(1);
    expect(parsed.auth).toBe('Bearer [redacted]');
    for (const trace of [LETTERS_KEY, SPECIAL_KEY, encodeURIComponent(SPECIAL_KEY), 'sk-abc']) {
      expect(scrubbed).not.toContain(trace);
    }
  });

  it('removes a numeric secret from number fields', () => {
    const numeric = createSecretScrubber(['9876543210123']);
    const parsed = JSON.parse(numeric.scrubJsonLine('{"pin":9876543210123,"n":1}\n'));
    expect(parsed).toEqual({ pin: REDACTED, n: 1 });
  });
});

describe('configuredSecrets and the process registry', () => {
  it('collects upstream keys, compatible upstream keys, the admin token, the S3 secret, URL passwords', () => {
    const found = configuredSecrets(
      sources({
        openai: 'sk-openai',
        compatible: 'local-key',
        adminToken: 'admin-token-0123456789abcdef',
        s3Secret: 's3-secret',
        redisUrl: 'redis://:p%40ss@127.0.0.1:6379',
      }),
    );
    expect(found).toEqual([
      { source: 'providers.openai.apiKey', value: 'sk-openai' },
      { source: 'compatibleUpstreams.local.apiKey', value: 'local-key' },
      { source: 'adminToken', value: 'admin-token-0123456789abcdef' },
      { source: 's3.secretAccessKey', value: 's3-secret' },
      { source: 'redis.url password', value: 'p@ss' },
    ]);
    expect(configuredSecrets(sources({}))).toEqual([]);
  });

  it('installs from the configuration, adds to earlier installs, and warns about short secrets by name', () => {
    const warnings: Array<{ obj: object; msg: string }> = [];
    const logger = { warn: (obj: object, msg: string) => warnings.push({ obj, msg }) };
    installSecretScrubber(sources({ openai: LETTERS_KEY }), logger);
    expect(warnings).toEqual([]);
    installSecretScrubber(sources({ mistral: 'shortk', s3Secret: 'S3SecretLettersOnly' }), logger);
    expect(scrubSecrets(`${LETTERS_KEY} S3SecretLettersOnly shortk`)).toBe(
      '[redacted] [redacted] [redacted]',
    );
    expect(JSON.parse(scrubLogLine(`{"msg":"${LETTERS_KEY}"}\n`))).toEqual({ msg: REDACTED });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.obj).toEqual({ secrets: ['providers.mistral.apiKey'], minLength: 8 });
    expect(JSON.stringify(warnings)).not.toContain('shortk');
  });

  it('is idempotent: the same configuration installed again keeps the scrubber it built', () => {
    const first = installSecretScrubber(sources({ openai: 'sk-idempotent-0123456789abcdef' }));
    expect(installSecretScrubber(sources({ openai: 'sk-idempotent-0123456789abcdef' }))).toBe(first);
    expect(secretScrubber()).toBe(first);
    expect(scrubSecrets('sk-idempotent-0123456789abcdef')).toBe(REDACTED);
  });
});
