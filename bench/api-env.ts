import type { LocalS3 } from '../infra/local-services/s3-server.ts';

/** What a bench starts its api (and workers) against: its own Redis, SQLite file and s3rver bucket. */
export interface BenchServices {
  readonly port: number;
  readonly redisUrl: string;
  readonly sqlitePath: string;
  readonly s3: LocalS3;
  readonly bucket: string;
  readonly adminToken: string;
}

/**
 * The environment every bench gives the gateway's processes: loopback on `port`, warnings only,
 * the services above, the operator token. `MONGO_URL` is left out: they open the SQLite file, as
 * under `npm start`. Each bench adds its own settings (upstream, catalogue, queue prefix…).
 */
export function benchApiEnv(services: BenchServices): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    PORT: String(services.port),
    LOG_LEVEL: 'warn',
    REDIS_URL: services.redisUrl,
    SQLITE_PATH: services.sqlitePath,
    S3_ENDPOINT: services.s3.endpoint,
    S3_ACCESS_KEY_ID: services.s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: services.s3.secretAccessKey,
    S3_BUCKET: services.bucket,
    ADMIN_TOKEN: services.adminToken,
  };
}
