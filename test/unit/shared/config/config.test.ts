import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../../shared/src/config/config.ts';

const minimal = { REDIS_URL: 'redis://127.0.0.1:6390' };

function problemsOf(env: Record<string, string | undefined>): readonly string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(minimal);
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(8080);
    expect(config.store).toEqual({ kind: 'sqlite', path: '.local/gateway.db', busyTimeoutMs: 5_000 });
    expect(config.s3).toMatchObject({ bucket: 'gateway-media', forcePathStyle: true, region: 'us-east-1' });
    expect(config.worker.queues).toEqual(['image', 'speech', 'transcription', 'video']);
    expect(config.worker.concurrency).toEqual({ image: 8, speech: 8, transcription: 4, video: 16 });
    expect(config.billing.settlementFlushMs).toBe(50);
  });

  it('returns a deeply frozen object', () => {
    const config = loadConfig(minimal);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.worker.concurrency)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('parses every variable it documents', () => {
    const config = loadConfig({
      ...minimal,
      HOST: '0.0.0.0',
      PORT: '9000',
      LOG_LEVEL: 'debug',
      S3_ENDPOINT: 'http://127.0.0.1:9001',
      S3_ACCESS_KEY_ID: 'a',
      S3_SECRET_ACCESS_KEY: 'b',
      S3_FORCE_PATH_STYLE: 'false',
      WORKER_QUEUES: ' video , image,video',
      WORKER_CONCURRENCY_VIDEO: '3',
      CATALOGUE_PATH: '/tmp/models.json',
    });
    expect(config).toMatchObject({ host: '0.0.0.0', port: 9000, logLevel: 'debug' });
    expect(config.s3).toMatchObject({
      endpoint: 'http://127.0.0.1:9001',
      accessKeyId: 'a',
      forcePathStyle: false,
    });
    expect(config.worker.queues).toEqual(['video', 'image']);
    expect(config.worker.concurrency.video).toBe(3);
    expect(config.catalogue.path).toBe('/tmp/models.json');
  });

  it('chooses MongoDB when MONGO_URL is set, else SQLite at SQLITE_PATH', () => {
    expect(
      loadConfig({ ...minimal, MONGO_URL: 'mongodb://127.0.0.1:27018', MONGO_DB: 'gw_prod' }).store,
    ).toEqual({
      kind: 'mongodb',
      url: 'mongodb://127.0.0.1:27018',
      database: 'gw_prod',
      serverSelectionTimeoutMs: 5_000,
    });
    expect(
      loadConfig({ ...minimal, SQLITE_PATH: '/var/lib/gw/db', SQLITE_BUSY_TIMEOUT_MS: '900' }).store,
    ).toEqual({ kind: 'sqlite', path: '/var/lib/gw/db', busyTimeoutMs: 900 });
    expect(problemsOf({ ...minimal, MONGO_URL: 'postgres://x' })[0]).toMatch(/^MONGO_URL /);
    expect(problemsOf({ ...minimal, SQLITE_BUSY_TIMEOUT_MS: '1' })[0]).toMatch(/^SQLITE_BUSY_TIMEOUT_MS /);
  });

  it('reads the metrics and tracing variables: off unless set, validated when set', () => {
    expect(loadConfig(minimal).metrics).toEqual({ token: undefined, host: '127.0.0.1', port: undefined });
    expect(loadConfig(minimal).tracing).toEqual({ otlpEndpoint: undefined });
    const config = loadConfig({
      ...minimal,
      METRICS_TOKEN: 'metrics-token-0123456789abcdef',
      METRICS_HOST: '0.0.0.0',
      METRICS_PORT: '9464',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.internal:4318/',
    });
    expect(config.metrics).toEqual({ token: 'metrics-token-0123456789abcdef', host: '0.0.0.0', port: 9464 });
    expect(config.tracing.otlpEndpoint).toBe('http://collector.internal:4318');
    expect(problemsOf({ ...minimal, METRICS_TOKEN: 'short' })).toEqual([
      'METRICS_TOKEN must be at least 24 characters',
    ]);
    expect(problemsOf({ ...minimal, METRICS_PORT: '0' })[0]).toMatch(/^METRICS_PORT /);
    expect(problemsOf({ ...minimal, OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' })[0]).toMatch(
      /^OTEL_EXPORTER_OTLP_ENDPOINT must be a URL starting with http:\/\/ or https:\/\//,
    );
    expect(problemsOf({ ...minimal, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/?x=1' })).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT must not have a query or a fragment',
    ]);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ ...minimal, PORT: '', S3_ENDPOINT: '' }).port).toBe(8080);
  });

  it('lists every bad variable at once, not only the first', () => {
    const problems = problemsOf({
      PORT: '80a',
      LOG_LEVEL: 'loud',
      REDIS_URL: 'http://127.0.0.1:6379',
      WORKER_QUEUES: 'image,chat',
      WORKER_CONCURRENCY_IMAGE: '0',
      S3_ACCESS_KEY_ID: 'only-one-half',
      S3_FORCE_PATH_STYLE: 'maybe',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'PORT must be a whole number',
        'REDIS_URL must be a URL starting with redis:// or rediss://',
        'WORKER_QUEUES must list queues among image, speech, transcription, video',
        'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together',
      ]),
    );
    expect(problems.some((p) => p.startsWith('LOG_LEVEL '))).toBe(true);
    expect(problems.some((p) => p.startsWith('WORKER_CONCURRENCY_IMAGE '))).toBe(true);
    expect(problems.some((p) => p.startsWith('S3_FORCE_PATH_STYLE '))).toBe(true);
    expect(problems).toHaveLength(7);
  });

  it('rejects out-of-range numbers instead of clamping them', () => {
    expect(problemsOf({ ...minimal, PORT: '70000' })[0]).toMatch(/^PORT /);
    expect(problemsOf({ ...minimal, SHUTDOWN_TIMEOUT_MS: '5' })[0]).toMatch(/^SHUTDOWN_TIMEOUT_MS /);
    expect(problemsOf({ ...minimal, SETTLEMENT_FLUSH_MS: '0' })[0]).toMatch(/^SETTLEMENT_FLUSH_MS /);
    expect(loadConfig({ ...minimal, SETTLEMENT_FLUSH_MS: '200' }).billing.settlementFlushMs).toBe(200);
  });

  it('rejects an empty queue list and bad names', () => {
    expect(problemsOf({ ...minimal, WORKER_QUEUES: ' , ' })).toEqual([
      'WORKER_QUEUES must name at least one queue',
    ]);
    expect(problemsOf({ ...minimal, S3_BUCKET: 'Bad_Bucket' })[0]).toMatch(
      /^S3_BUCKET must be a valid S3 bucket name/,
    );
    expect(problemsOf({ ...minimal, MONGO_DB: 'a b' })[0]).toMatch(/^MONGO_DB /);
  });

  it('formats the whole list in the error message', () => {
    expect(() => loadConfig({})).toThrow(
      /Invalid configuration:\n {2}- REDIS_URL is required \(or REDIS_CLUSTER_NODES, or REDIS_SENTINELS with REDIS_SENTINEL_MASTER\)$/,
    );
  });
});

describe('billing and upstream settings', () => {
  it('keeps the minimum balance exact, in µIRT', () => {
    expect(
      loadConfig({ ...minimal, MIN_REQUIRED_BALANCE: '999999999999.999999' }).billing.minRequiredMicros,
    ).toBe(999_999_999_999_999_999n);
    expect(loadConfig(minimal).billing.minRequiredMicros).toBe(0n);
  });

  it('reads provider base URLs and keys, with official defaults', () => {
    const config = loadConfig({
      ...minimal,
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1/',
      OPENAI_API_KEY: 'sk-1',
    });
    expect(config.providers.openai).toEqual({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-1' });
    expect(config.providers.anthropic).toEqual({ baseUrl: 'https://api.anthropic.com', apiKey: undefined });
  });

  it('lists bad billing, proxy and provider variables', () => {
    const problems = problemsOf({
      ...minimal,
      ADMIN_TOKEN: 'short',
      TRUST_PROXY: '10.0.0.0/8, nonsense',
      MIN_REQUIRED_BALANCE: '-1',
      BILLING_TIME_ZONE: 'Mars/Base',
      OPENAI_BASE_URL: 'ftp://x',
      ANTHROPIC_API_KEY: ' ',
    });
    expect(problems).toEqual([
      'ADMIN_TOKEN must be at least 24 characters',
      'TRUST_PROXY must list IP addresses or CIDR ranges',
      'MIN_REQUIRED_BALANCE must be a non-negative amount in Toman, at most 6 decimals',
      'BILLING_TIME_ZONE must be an IANA time zone such as Asia/Tehran',
      'OPENAI_BASE_URL must be a URL starting with http:// or https://',
      'ANTHROPIC_API_KEY must not be blank',
    ]);
  });
});

describe('OpenAI-compatible upstreams declared in configuration', () => {
  it('reads each declared upstream from <ID>_BASE_URL and <ID>_API_KEY', () => {
    const config = loadConfig({
      ...minimal,
      OPENAI_COMPATIBLE_UPSTREAMS: 'together, local-llm',
      TOGETHER_BASE_URL: 'https://api.together.example/v1/',
      TOGETHER_API_KEY: 'tg-key',
      LOCAL_LLM_BASE_URL: 'http://127.0.0.1:9999/v1',
    });
    expect(config.compatibleUpstreams).toEqual({
      together: { baseUrl: 'https://api.together.example/v1', apiKey: 'tg-key' },
      'local-llm': { baseUrl: 'http://127.0.0.1:9999/v1', apiKey: undefined },
    });
  });

  it('refuses a missing base URL, a bad id and a built-in id', () => {
    expect(problemsOf({ ...minimal, OPENAI_COMPATIBLE_UPSTREAMS: 'together' })).toEqual([
      'TOGETHER_BASE_URL must be a URL starting with http:// or https:// (upstream together)',
    ]);
    expect(problemsOf({ ...minimal, OPENAI_COMPATIBLE_UPSTREAMS: 'Bad_Id' })[0]).toMatch(
      /^OPENAI_COMPATIBLE_UPSTREAMS /,
    );
    expect(problemsOf({ ...minimal, OPENAI_COMPATIBLE_UPSTREAMS: 'openai' })[0]).toMatch(/built-in provider/);
  });
});

describe('the request log settings', () => {
  it('default to on, .local/requests.db and 30 days', () => {
    expect(loadConfig(minimal).requestLog).toEqual({
      enabled: true,
      path: '.local/requests.db',
      retentionDays: 30,
    });
    expect(
      loadConfig({ ...minimal, REQUEST_LOG_PATH: '/data/log.db', REQUEST_LOG_RETENTION_DAYS: '7' })
        .requestLog,
    ).toEqual({ enabled: true, path: '/data/log.db', retentionDays: 7 });
  });

  it.each([
    ['false', false],
    ['0', false],
    ['no', false],
    ['true', true],
    ['1', true],
  ])('read REQUEST_LOG_ENABLED=%s', (value, enabled) => {
    expect(loadConfig({ ...minimal, REQUEST_LOG_ENABLED: value }).requestLog.enabled).toBe(enabled);
  });

  it.each(['off', 'maybe'])('refuse REQUEST_LOG_ENABLED=%s', (value) => {
    expect(() => loadConfig({ ...minimal, REQUEST_LOG_ENABLED: value })).toThrow(ConfigError);
  });

  it.each(['0', '3651', 'ten', '1.5'])('refuse REQUEST_LOG_RETENTION_DAYS=%s', (value) => {
    expect(() => loadConfig({ ...minimal, REQUEST_LOG_RETENTION_DAYS: value })).toThrow(ConfigError);
  });
});
