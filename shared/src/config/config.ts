import { isIP } from 'node:net';
import { z } from 'zod';
import { irtToMicros } from '../billing/money.ts';
import { QUEUE_NAMES, type QueueName } from '../jobs/queue-names.ts';
import { PROVIDER_IDS, type ProviderId } from '../providers/provider-ids.ts';
import { bullmqPrefixOf } from '../redis/hash-tags.ts';
import type { RedisSettings } from '../redis/redis-settings.ts';
import { isMongoConnectionString } from './mongo-connection-string.ts';
import { redisSettingsOf } from './redis-config.ts';

/**
 * The service configuration: parsed once from the environment at start, validated as a whole,
 * frozen. Nothing else in the code base reads `process.env`.
 */
export interface Config {
  readonly host: string;
  readonly port: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * How long a process may take to stop on SIGTERM/SIGINT before it exits 1. Work in flight may run
   * on until a reserve before its end (`inFlightGraceMs`); then what is left is ended
   * (docs/reliability.md, "Stopping").
   */
  readonly shutdownTimeoutMs: number;
  /**
   * How long a stream whose client left after output keeps reading its upstream, for the usage
   * the upstream reports at its end (docs/chat.md, "A client that leaves").
   */
  readonly streamDrainMs: number;
  /** Largest JSON request body accepted (413 above it). */
  readonly maxBodyBytes: number;
  /** Longest silence between two chunks of a request body being read (then 408, connection closed). */
  readonly bodyReadTimeoutMs: number;
  /** Longest a request head may take to arrive in full (then 408, connection closed). */
  readonly headersTimeoutMs: number;
  /**
   * Where Redis is: one node (`REDIS_URL`), a Cluster (`REDIS_CLUSTER_NODES`) or a Sentinel-managed
   * primary (`REDIS_SENTINELS`, `REDIS_SENTINEL_MASTER`); docs/redis.md.
   */
  readonly redis: RedisSettings;
  /** The durable store: MongoDB when `MONGO_URL` is set, else SQLite at `SQLITE_PATH`. */
  readonly store: StoreConfig;
  /** The request log (docs/request-log.md): its own SQLite file, or a MongoDB collection. */
  readonly requestLog: {
    /**
     * `REQUEST_LOG_ENABLED`: whether requests are recorded (default true). Off, no record is made
     * (the bench's baseline); the records already stored can still be read.
     */
    readonly enabled: boolean;
    /** `REQUEST_LOG_PATH`: the log's SQLite file (the SQLite store only). */
    readonly path: string;
    /** `REQUEST_LOG_RETENTION_DAYS`: records older than this are deleted. */
    readonly retentionDays: number;
  };
  readonly s3: {
    readonly endpoint: string | undefined;
    readonly region: string;
    readonly accessKeyId: string | undefined;
    readonly secretAccessKey: string | undefined;
    readonly bucket: string;
    readonly forcePathStyle: boolean;
  };
  readonly queues: {
    /** Namespace of the gateway's own keys (`gw:billing:…`, `gw:console:…`), never a hash tag. */
    readonly prefix: string;
    /** BullMQ's prefix: `{gw}` on a Cluster (one slot per queue's keys), else the prefix itself. */
    readonly bullmqPrefix: string;
  };
  readonly worker: {
    readonly queues: readonly QueueName[];
    readonly concurrency: Readonly<Record<QueueName, number>>;
    /** How long a worker's lock on an active job lasts (renewed while it runs). */
    readonly lockDurationMs: number;
    /** How often stalled jobs (their worker died) are looked for and handed to another worker. */
    readonly stalledIntervalMs: number;
    /** How often media jobs left unfinished (queue entry lost, deadline passed, api gone) are reconciled. */
    readonly reconcileIntervalMs: number;
    /** How often the bucket is swept of media no job needs (delivered, expired, orphaned). */
    readonly mediaSweepIntervalMs: number;
  };
  readonly catalogue: { readonly path: string | undefined };
  /** The channels' breakers (docs/channels.md): failures that open one, and its first cooldown. */
  readonly channelBreaker: { readonly failureThreshold: number; readonly cooldownMs: number };
  readonly readinessTimeoutMs: number;
  /** Bearer token of the operator API; without one `/admin/v1` answers 404. */
  readonly adminToken: string | undefined;
  /**
   * The keys sealing channel credentials (AES-256-GCM, 32 bytes each): `current` seals and opens,
   * `previous` only opens, during a rotation (docs/channels.md). Undefined: no channel can be made.
   */
  readonly channelSecrets: { readonly current: string | undefined; readonly previous: string | undefined };
  /** Proxies whose `X-Forwarded-For` is believed (addresses or CIDR ranges); none when empty. */
  readonly trustProxy: readonly string[];
  /**
   * Where users reach this service (`PUBLIC_BASE_URL`, no trailing slash): the origin of the console
   * links the operator hands out. Unset: the origin the operator's own request came to.
   */
  readonly publicBaseUrl: string | undefined;
  readonly billing: {
    /** The spec's `min_required`, in µIRT (exact: parsed from the decimal text, never through a float). */
    readonly minRequiredMicros: bigint;
    /** IANA zone in which days (usage rows) and months (spend caps) begin. */
    readonly timeZone: string;
    /**
     * The lease of a request's hold: the process serving the request renews it every third of this
     * while the request lives, so the holds of a process that died are gone within it.
     */
    readonly holdLeaseMs: number;
    /** Pause between two settlement batches (group commit): charges arriving meanwhile share one. */
    readonly settlementFlushMs: number;
  };
  /** How long a key record may be served from the in-process cache (at most 60 s). */
  readonly keyCacheTtlMs: number;
  /**
   * Whether a model whose providers have no API key is answered by the offline `demo` simulator
   * (the local stack's quick start) instead of being unavailable (404 `model_not_found`).
   */
  readonly simulateProviders: boolean;
  /** Upstream base URLs (version path included) and keys; a provider without a key is not routed to. */
  readonly providers: Readonly<Record<Exclude<ProviderId, 'demo'>, UpstreamProviderConfig>>;
  readonly media: MediaConfig;
  /** Further OpenAI-compatible upstreams by id (`OPENAI_COMPATIBLE_UPSTREAMS`), routable from the catalogue. */
  readonly compatibleUpstreams: Readonly<Record<string, UpstreamProviderConfig>>;
  readonly upstream: {
    readonly connectTimeoutMs: number;
    /** Until the upstream's response headers arrive. */
    readonly headersTimeoutMs: number;
    /** Longest silence between two chunks of an upstream body (streams included). */
    readonly bodyTimeoutMs: number;
    readonly connectionsPerOrigin: number;
  };
  /** Prometheus metrics (docs/observability.md). */
  readonly metrics: MetricsConfig;
  /** OpenTelemetry traces: exported over OTLP/HTTP only when an endpoint is set. */
  readonly tracing: { readonly otlpEndpoint: string | undefined };
  /** `SIGNUP_MODE`: `open` lets anyone sign up in the console by email; `invite` (default) does not. */
  readonly signupMode: 'open' | 'invite';
  /** Outgoing mail (docs/mail.md). */
  readonly mail: MailConfig;
  /** Wallet top-ups through a payment gateway (docs/payments.md). */
  readonly payments: PaymentsConfig;
}

export interface MailConfig {
  /** `SMTP_URL` (`smtp://` or `smtps://`, credentials inside); unset: mails go to `.eml` files. */
  readonly smtpUrl: string | undefined;
  /** `MAIL_FROM`: the sender of every mail. */
  readonly from: string;
  /** `MAIL_DIR`: where mails are written as `.eml` files when there is no `SMTP_URL`. */
  readonly dir: string;
}

export interface PaymentsConfig {
  /** Zarinpal, enabled when `ZARINPAL_MERCHANT_ID` is set; undefined otherwise. */
  readonly zarinpal: { readonly merchantId: string; readonly baseUrl: string } | undefined;
  /** Smallest and largest top-up through the gateway, in whole Toman. */
  readonly minToman: number;
  readonly maxToman: number;
}

export interface MetricsConfig {
  /**
   * Bearer token every `/metrics` endpoint requires when set; without one the api's own port has
   * no `/metrics` (404) and metrics are served only on the separate metrics port.
   */
  readonly token: string | undefined;
  /** Address of the separate metrics-only HTTP server (api and workers). */
  readonly host: string;
  /** Its port; unset: no separate metrics server. */
  readonly port: number | undefined;
}

export type StoreConfig =
  | {
      readonly kind: 'mongodb';
      readonly url: string;
      readonly database: string;
      readonly serverSelectionTimeoutMs: number;
    }
  | {
      readonly kind: 'sqlite';
      /** The database file; the api and workers of one host share it. */
      readonly path: string;
      /** How long a write waits for another process's write lock before failing (busy_timeout). */
      readonly busyTimeoutMs: number;
    };

export interface MediaConfig {
  /** Models used when an image, speech or transcription request names none (catalogue ids). */
  readonly defaultImageModel: string;
  readonly defaultTtsModel: string;
  readonly defaultSttModel: string;
  /** How long the api waits for an image, speech or transcription job before answering an error. */
  readonly waitTimeoutMs: number;
  /**
   * The lease a waiting api holds on its synchronous job in Redis, renewed while it waits: a worker
   * runs the job only while it is held, so a job whose api is gone is not run (docs/media.md).
   */
  readonly waiterLeaseMs: number;
  /** Largest image the worker also hands to the waiting api through Redis (0: none; S3 then). */
  readonly handoffMaxBytes: number;
  /** A video render still running this long after submission is given up (failed, not charged). */
  readonly videoDeadlineMs: number;
  /** First delay between two polls of a render; it grows up to 6 times that. */
  readonly videoPollIntervalMs: number;
  /** How long a finished video stays downloadable. */
  readonly videoRetentionMs: number;
  /** How long the offline demo provider takes to "render" a video. */
  readonly demoVideoRenderMs: number;
}

export interface UpstreamProviderConfig {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
}

/** Official base URLs; tests and deployments point them elsewhere with `<PROVIDER>_BASE_URL`. */
const DEFAULT_BASE_URLS: Readonly<Record<Exclude<ProviderId, 'demo'>, string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  google: 'https://generativelanguage.googleapis.com',
  deepseek: 'https://api.deepseek.com',
  xai: 'https://api.x.ai/v1',
  mistral: 'https://api.mistral.ai/v1',
  groq: 'https://api.groq.com/openai/v1',
  elevenlabs: 'https://api.elevenlabs.io',
  runway: 'https://api.dev.runwayml.com',
};

const UPSTREAM_PROVIDERS = PROVIDER_IDS.filter((id): id is Exclude<ProviderId, 'demo'> => id !== 'demo');

/** The upstream client's settings when `UPSTREAM_*` are unset (the bench's floor proxy uses them too). */
export const UPSTREAM_DEFAULTS = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 120_000,
  bodyTimeoutMs: 120_000,
  connectionsPerOrigin: 4096,
} as const;

/** Thrown when the environment does not describe a valid configuration; lists every problem. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ['true', 'false', '1', '0', 'yes', 'no'].includes(v), 'must be true or false')
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const url = (protocols: readonly string[]) =>
  z
    .string()
    .trim()
    .refine(
      (v) => {
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    );

/** A MongoDB connection string, a replica set's list of hosts included (mongo-connection-string.ts). */
const mongoUrl = z
  .string()
  .trim()
  .refine(
    isMongoConnectionString,
    'must be a URL starting with mongodb:// or mongodb+srv:// and naming its host (or, with mongodb://, its comma-separated hosts)',
  );

const queueList = z
  .string()
  .trim()
  .transform((v) => [
    ...new Set(
      v
        .split(',')
        .map((q) => q.trim())
        .filter(Boolean),
    ),
  ])
  .pipe(
    z
      .array(z.enum(QUEUE_NAMES, { error: () => `must list queues among ${QUEUE_NAMES.join(', ')}` }))
      .min(1, 'must name at least one queue'),
  );

const optional = <T extends z.ZodType>(schema: T) => schema.optional();

/** A 32-byte key given as base64 (`openssl rand -base64 32`), kept as its base64 text. */
const secretKey = z
  .string()
  .trim()
  .transform((text, ctx) => {
    const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
    if (bytes.length !== 32) {
      ctx.addIssue({ code: 'custom', message: 'must be 32 bytes in base64 (openssl rand -base64 32)' });
      return z.NEVER;
    }
    return text;
  });

const envSchema = z.object({
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  PORT: int(1, 65535).default(8080),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_TIMEOUT_MS: int(100, 600_000).default(10_000),
  STREAM_DRAIN_MS: int(0, 120_000).default(5_000),
  CHANNEL_FAILURE_THRESHOLD: int(1, 1_000).default(3),
  CHANNEL_COOLDOWN_MS: int(1_000, 600_000).default(30_000),
  MAX_BODY_BYTES: int(1_024, 100 * 1024 * 1024).default(8 * 1024 * 1024),
  BODY_READ_TIMEOUT_MS: int(100, 600_000).default(30_000),
  HEADERS_TIMEOUT_MS: int(1_000, 600_000).default(10_000),
  READINESS_TIMEOUT_MS: int(50, 60_000).default(2_000),
  REDIS_URL: optional(url(['redis:', 'rediss:'])),
  REDIS_CLUSTER_NODES: optional(z.string()),
  REDIS_SENTINELS: optional(z.string()),
  REDIS_SENTINEL_MASTER: optional(z.string()),
  REDIS_USERNAME: optional(z.string()),
  REDIS_PASSWORD: optional(z.string()),
  REDIS_SENTINEL_PASSWORD: optional(z.string()),
  REDIS_TLS: optional(z.string()),
  MONGO_URL: optional(mongoUrl),
  MONGO_DB: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,63}$/, 'must be 1 to 63 letters, digits, _ or -')
    .default('gateway'),
  MONGO_SERVER_SELECTION_TIMEOUT_MS: int(100, 120_000).default(5_000),
  SQLITE_PATH: z.string().trim().min(1).default('.local/gateway.db'),
  SQLITE_BUSY_TIMEOUT_MS: int(10, 120_000).default(5_000),
  REQUEST_LOG_ENABLED: bool.default(true),
  REQUEST_LOG_PATH: z.string().trim().min(1).default('.local/requests.db'),
  REQUEST_LOG_RETENTION_DAYS: int(1, 3650).default(30),
  S3_ENDPOINT: optional(url(['http:', 'https:'])),
  S3_REGION: z.string().trim().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: optional(z.string().min(1)),
  S3_SECRET_ACCESS_KEY: optional(z.string().min(1)),
  S3_BUCKET: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid S3 bucket name')
    .default('gateway-media'),
  S3_FORCE_PATH_STYLE: bool.default(true),
  QUEUE_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_:-]{1,64}$/, 'must be 1 to 64 letters, digits, _, : or -')
    .default('gw'),
  WORKER_QUEUES: queueList.default([...QUEUE_NAMES]),
  WORKER_CONCURRENCY_IMAGE: int(1, 1000).default(8),
  WORKER_CONCURRENCY_SPEECH: int(1, 1000).default(8),
  WORKER_CONCURRENCY_TRANSCRIPTION: int(1, 1000).default(4),
  WORKER_CONCURRENCY_VIDEO: int(1, 1000).default(16),
  WORKER_LOCK_DURATION_MS: int(500, 600_000).default(30_000),
  WORKER_STALLED_INTERVAL_MS: int(500, 600_000).default(30_000),
  RECONCILE_INTERVAL_MS: int(100, 3600 * 1000).default(30_000),
  MEDIA_SWEEP_INTERVAL_MS: int(1_000, 24 * 3600 * 1000).default(600_000),
  CATALOGUE_PATH: optional(z.string().trim().min(1)),
  ADMIN_TOKEN: optional(z.string().trim().min(24, 'must be at least 24 characters')),
  CHANNEL_SECRET_KEY: optional(secretKey),
  CHANNEL_SECRET_KEY_PREVIOUS: optional(secretKey),
  TRUST_PROXY: z
    .string()
    .trim()
    .transform((v) =>
      v
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().refine(isAddressOrRange, 'must list IP addresses or CIDR ranges')))
    .default([]),
  PUBLIC_BASE_URL: optional(
    url(['http:', 'https:'])
      .refine((v) => !/[?#]/.test(v), 'must not have a query or a fragment')
      .transform((v) => v.replace(/\/+$/, '')),
  ),
  MIN_REQUIRED_BALANCE: z
    .string()
    .trim()
    .regex(/^\d{1,12}(\.\d{1,6})?$/, 'must be a non-negative amount in Toman, at most 6 decimals')
    .transform((v) => irtToMicros(v))
    .default(0n),
  BILLING_TIME_ZONE: z
    .string()
    .trim()
    .refine(isTimeZone, 'must be an IANA time zone such as Asia/Tehran')
    .default('Asia/Tehran'),
  HOLD_LEASE_MS: int(300, 3600 * 1000).default(60_000),
  SETTLEMENT_FLUSH_MS: int(1, 1_000).default(50),
  KEY_CACHE_TTL_MS: int(0, 60_000).default(60_000),
  DEFAULT_IMAGE_MODEL: z.string().trim().min(1).default('openai/gpt-image-1'),
  DEFAULT_TTS_MODEL: z.string().trim().min(1).default('openai/gpt-4o-mini-tts'),
  DEFAULT_STT_MODEL: z.string().trim().min(1).default('openai/whisper-1'),
  MEDIA_WAIT_TIMEOUT_MS: int(100, 900_000).default(120_000),
  MEDIA_WAITER_LEASE_MS: int(300, 600_000).default(10_000),
  MEDIA_HANDOFF_MAX_BYTES: int(0, 64 * 1024 * 1024).default(4 * 1024 * 1024),
  VIDEO_DEADLINE_MS: int(1_000, 24 * 3600 * 1000).default(30 * 60 * 1000),
  VIDEO_POLL_INTERVAL_MS: int(10, 600_000).default(5_000),
  VIDEO_RETENTION_DAYS: int(1, 365).default(7),
  DEMO_VIDEO_RENDER_MS: int(0, 600_000).default(2_000),
  SIMULATE_PROVIDERS: bool.default(false),
  OPENAI_COMPATIBLE_UPSTREAMS: z
    .string()
    .trim()
    .transform((v) => [
      ...new Set(
        v
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(
      z.array(
        z
          .string()
          .regex(/^[a-z][a-z0-9-]{1,30}$/, 'must list ids of lower-case letters, digits and -')
          .refine(
            (id) => !(PROVIDER_IDS as readonly string[]).includes(id),
            'must not reuse a built-in provider id',
          ),
      ),
    )
    .default([]),
  UPSTREAM_CONNECT_TIMEOUT_MS: int(100, 120_000).default(UPSTREAM_DEFAULTS.connectTimeoutMs),
  UPSTREAM_HEADERS_TIMEOUT_MS: int(100, 900_000).default(UPSTREAM_DEFAULTS.headersTimeoutMs),
  UPSTREAM_BODY_TIMEOUT_MS: int(100, 900_000).default(UPSTREAM_DEFAULTS.bodyTimeoutMs),
  UPSTREAM_CONNECTIONS_PER_ORIGIN: int(1, 100_000).default(UPSTREAM_DEFAULTS.connectionsPerOrigin),
  METRICS_TOKEN: optional(z.string().trim().min(24, 'must be at least 24 characters')),
  METRICS_HOST: z.string().trim().min(1).default('127.0.0.1'),
  METRICS_PORT: optional(int(1, 65535)),
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(
    url(['http:', 'https:'])
      .refine((v) => !/[?#]/.test(v), 'must not have a query or a fragment')
      .transform((v) => v.replace(/\/+$/, '')),
  ),
  SIGNUP_MODE: z.enum(['open', 'invite']).default('invite'),
  SMTP_URL: optional(url(['smtp:', 'smtps:'])),
  MAIL_FROM: z.string().trim().min(3).default('Model gateway <no-reply@gateway.local>'),
  MAIL_DIR: z.string().trim().min(1).default('.local/mail'),
  ZARINPAL_MERCHANT_ID: optional(
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9-]{36}$/, 'must be the 36-character merchant id Zarinpal gave'),
  ),
  ZARINPAL_BASE_URL: url(['http:', 'https:'])
    .refine((v) => !/[?#]/.test(v), 'must not have a query or a fragment')
    .transform((v) => v.replace(/\/+$/, ''))
    .default('https://payment.zarinpal.com'),
  PAYMENT_MIN_TOMAN: int(1, 1_000_000_000_000).default(10_000),
  PAYMENT_MAX_TOMAN: int(1, 1_000_000_000_000).default(100_000_000),
  ...providerVariables(),
});

function providerVariables() {
  const entries = UPSTREAM_PROVIDERS.flatMap((id) => {
    const name = id.toUpperCase();
    return [
      [
        `${name}_BASE_URL`,
        url(['http:', 'https:'])
          .transform((v) => v.replace(/\/+$/, ''))
          .default(DEFAULT_BASE_URLS[id]),
      ],
      [`${name}_API_KEY`, optional(z.string().trim().min(1, 'must not be blank'))],
    ] as const;
  });
  return Object.fromEntries(entries) as Record<string, z.ZodType<string | undefined>>;
}

/** `<ID>_BASE_URL` (required) and `<ID>_API_KEY` of each declared compatible upstream. */
function compatibleUpstreams(
  ids: readonly string[],
  env: Env,
  problems: string[],
): Record<string, UpstreamProviderConfig> {
  const upstreams: Record<string, UpstreamProviderConfig> = {};
  for (const id of ids) {
    const name = id.toUpperCase().replaceAll('-', '_');
    const parsed = url(['http:', 'https:']).safeParse(env[`${name}_BASE_URL`] ?? '');
    if (!parsed.success) {
      problems.push(`${name}_BASE_URL must be a URL starting with http:// or https:// (upstream ${id})`);
      continue;
    }
    upstreams[id] = {
      baseUrl: parsed.data.replace(/\/+$/, ''),
      apiKey: env[`${name}_API_KEY`]?.trim() || undefined,
    };
  }
  return upstreams;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function isAddressOrRange(value: string): boolean {
  const [address, bits, extra] = value.split('/');
  if (extra !== undefined || address === undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (bits === undefined) return true;
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The variables that name the durable store, and the log level. */
const storeSchema = envSchema.pick({
  LOG_LEVEL: true,
  MONGO_URL: true,
  MONGO_DB: true,
  MONGO_SERVER_SELECTION_TIMEOUT_MS: true,
  SQLITE_PATH: true,
  SQLITE_BUSY_TIMEOUT_MS: true,
});

/** What a tool that only reads the durable store needs (`npm run ledger:check`): no Redis, no S3. */
export interface StoreToolConfig {
  readonly logLevel: Config['logLevel'];
  readonly store: StoreConfig;
}

/** Parses only the store's variables (and the log level), or throws ConfigError listing the bad ones. */
/** `CHANNEL_SECRET_KEY` and `CHANNEL_SECRET_KEY_PREVIOUS` alone (the key rotation command). */
export function loadChannelSecretsConfig(env: Env): Pick<Config, 'channelSecrets'> {
  const present = presentVariables(env);
  const parsed = z
    .object({ CHANNEL_SECRET_KEY: optional(secretKey), CHANNEL_SECRET_KEY_PREVIOUS: optional(secretKey) })
    .safeParse(present);
  if (!parsed.success)
    throw new ConfigError(parsed.error.issues.map((issue) => describeIssue(issue, present)));
  return deepFreeze({
    channelSecrets: {
      current: parsed.data.CHANNEL_SECRET_KEY,
      previous: parsed.data.CHANNEL_SECRET_KEY_PREVIOUS,
    },
  });
}

export function loadStoreToolConfig(env: Env): StoreToolConfig {
  const present = presentVariables(env);
  const parsed = storeSchema.safeParse(present);
  if (!parsed.success)
    throw new ConfigError(parsed.error.issues.map((issue) => describeIssue(issue, present)));
  return deepFreeze({ logLevel: parsed.data.LOG_LEVEL, store: storeOf(parsed.data) });
}

function storeOf(e: z.infer<typeof storeSchema>): StoreConfig {
  if (e.MONGO_URL === undefined)
    return { kind: 'sqlite', path: e.SQLITE_PATH, busyTimeoutMs: e.SQLITE_BUSY_TIMEOUT_MS };
  return {
    kind: 'mongodb',
    url: e.MONGO_URL,
    database: e.MONGO_DB,
    serverSelectionTimeoutMs: e.MONGO_SERVER_SELECTION_TIMEOUT_MS,
  };
}

/** The variables that are set: empty strings mean "not set", as in most .env tooling. */
function presentVariables(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
}

/** Parses the environment into a frozen Config, or throws ConfigError listing every bad variable. */
export function loadConfig(env: Env): Config {
  const present = presentVariables(env);
  const parsed = envSchema.safeParse(present);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => describeIssue(issue, present));
  if (present.HOLD_TTL_MS !== undefined) {
    problems.push('HOLD_TTL_MS is no longer read: holds are leases renewed by their process (HOLD_LEASE_MS)');
  }
  if ((present.S3_ACCESS_KEY_ID === undefined) !== (present.S3_SECRET_ACCESS_KEY === undefined)) {
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  }
  if (parsed.success && parsed.data.PAYMENT_MIN_TOMAN > parsed.data.PAYMENT_MAX_TOMAN) {
    problems.push('PAYMENT_MIN_TOMAN must not be above PAYMENT_MAX_TOMAN');
  }
  const compatible = parsed.success
    ? compatibleUpstreams(parsed.data.OPENAI_COMPATIBLE_UPSTREAMS, present, problems)
    : {};
  // REDIS_URL's own form is the schema's to check; which mode is set, and the lists, are checked here.
  const redisUrlBad = parsed.success
    ? false
    : parsed.error.issues.some((issue) => issue.path[0] === 'REDIS_URL');
  const redis = redisSettingsOf(redisUrlBad ? { ...present, REDIS_URL: 'redis://bad' } : present, problems);
  if (!parsed.success || problems.length > 0 || redis === undefined) throw new ConfigError(problems);
  const e = parsed.data;

  return deepFreeze({
    host: e.HOST,
    port: e.PORT,
    logLevel: e.LOG_LEVEL,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    streamDrainMs: e.STREAM_DRAIN_MS,
    channelBreaker: { failureThreshold: e.CHANNEL_FAILURE_THRESHOLD, cooldownMs: e.CHANNEL_COOLDOWN_MS },
    maxBodyBytes: e.MAX_BODY_BYTES,
    bodyReadTimeoutMs: e.BODY_READ_TIMEOUT_MS,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    readinessTimeoutMs: e.READINESS_TIMEOUT_MS,
    redis,
    store: storeOf(e),
    requestLog: {
      enabled: e.REQUEST_LOG_ENABLED,
      path: e.REQUEST_LOG_PATH,
      retentionDays: e.REQUEST_LOG_RETENTION_DAYS,
    },
    s3: {
      endpoint: e.S3_ENDPOINT,
      region: e.S3_REGION,
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
      bucket: e.S3_BUCKET,
      forcePathStyle: e.S3_FORCE_PATH_STYLE,
    },
    queues: { prefix: e.QUEUE_PREFIX, bullmqPrefix: bullmqPrefixOf(e.QUEUE_PREFIX, redis.mode) },
    worker: {
      queues: e.WORKER_QUEUES,
      concurrency: {
        image: e.WORKER_CONCURRENCY_IMAGE,
        speech: e.WORKER_CONCURRENCY_SPEECH,
        transcription: e.WORKER_CONCURRENCY_TRANSCRIPTION,
        video: e.WORKER_CONCURRENCY_VIDEO,
      },
      lockDurationMs: e.WORKER_LOCK_DURATION_MS,
      stalledIntervalMs: e.WORKER_STALLED_INTERVAL_MS,
      reconcileIntervalMs: e.RECONCILE_INTERVAL_MS,
      mediaSweepIntervalMs: e.MEDIA_SWEEP_INTERVAL_MS,
    },
    catalogue: { path: e.CATALOGUE_PATH },
    adminToken: e.ADMIN_TOKEN,
    channelSecrets: { current: e.CHANNEL_SECRET_KEY, previous: e.CHANNEL_SECRET_KEY_PREVIOUS },
    trustProxy: e.TRUST_PROXY,
    publicBaseUrl: e.PUBLIC_BASE_URL,
    billing: {
      minRequiredMicros: e.MIN_REQUIRED_BALANCE,
      timeZone: e.BILLING_TIME_ZONE,
      holdLeaseMs: e.HOLD_LEASE_MS,
      settlementFlushMs: e.SETTLEMENT_FLUSH_MS,
    },
    keyCacheTtlMs: e.KEY_CACHE_TTL_MS,
    providers: Object.fromEntries(
      UPSTREAM_PROVIDERS.map((id) => {
        const name = id.toUpperCase();
        const values = e as unknown as Record<string, string | undefined>;
        return [
          id,
          { baseUrl: values[`${name}_BASE_URL`] ?? DEFAULT_BASE_URLS[id], apiKey: values[`${name}_API_KEY`] },
        ];
      }),
    ) as Config['providers'],
    media: {
      defaultImageModel: e.DEFAULT_IMAGE_MODEL,
      defaultTtsModel: e.DEFAULT_TTS_MODEL,
      defaultSttModel: e.DEFAULT_STT_MODEL,
      waitTimeoutMs: e.MEDIA_WAIT_TIMEOUT_MS,
      waiterLeaseMs: e.MEDIA_WAITER_LEASE_MS,
      handoffMaxBytes: e.MEDIA_HANDOFF_MAX_BYTES,
      videoDeadlineMs: e.VIDEO_DEADLINE_MS,
      videoPollIntervalMs: e.VIDEO_POLL_INTERVAL_MS,
      videoRetentionMs: e.VIDEO_RETENTION_DAYS * 24 * 3600 * 1000,
      demoVideoRenderMs: e.DEMO_VIDEO_RENDER_MS,
    },
    compatibleUpstreams: compatible,
    simulateProviders: e.SIMULATE_PROVIDERS,
    upstream: {
      connectTimeoutMs: e.UPSTREAM_CONNECT_TIMEOUT_MS,
      headersTimeoutMs: e.UPSTREAM_HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: e.UPSTREAM_BODY_TIMEOUT_MS,
      connectionsPerOrigin: e.UPSTREAM_CONNECTIONS_PER_ORIGIN,
    },
    metrics: { token: e.METRICS_TOKEN, host: e.METRICS_HOST, port: e.METRICS_PORT },
    tracing: { otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT },
    signupMode: e.SIGNUP_MODE,
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, dir: e.MAIL_DIR },
    payments: {
      zarinpal:
        e.ZARINPAL_MERCHANT_ID === undefined
          ? undefined
          : { merchantId: e.ZARINPAL_MERCHANT_ID, baseUrl: e.ZARINPAL_BASE_URL },
      minToman: e.PAYMENT_MIN_TOMAN,
      maxToman: e.PAYMENT_MAX_TOMAN,
    },
  });
}

function describeIssue(issue: z.core.$ZodIssue, present: Env): string {
  const name = String(issue.path[0] ?? 'environment');
  const missing = issue.code === 'invalid_type' && present[name] === undefined;
  return `${name} ${missing ? 'is required' : issue.message}`;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
