import { StackError } from './stack-log.ts';

/** What the local stack reads from its environment, checked before anything starts. */
export interface StackSettings {
  /** The address the api listens on (HOST). */
  readonly host: string;
  readonly port: number;
  /** Where the api is reached from this machine: `http://host:port`, with wildcard hosts made local. */
  readonly origin: string;
  /** How long the api and the worker get to close gracefully before SIGKILL. */
  readonly appStopTimeoutMs: number;
  /** How long the api gets to answer GET /readyz with 200. */
  readonly readyTimeoutMs: number;
}

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_PORT = 8080;
/** The apps' own default for SHUTDOWN_TIMEOUT_MS; the stack adds a margin before SIGKILL. */
const DEFAULT_APP_SHUTDOWN_MS = 10_000;
const STOP_MARGIN_MS = 5_000;
const READY_TIMEOUT_MS = 60_000;

/** Reads HOST, PORT and SHUTDOWN_TIMEOUT_MS; throws a StackError naming a bad value. */
export function readStackSettings(env: Env): StackSettings {
  const host = envValue(env, 'HOST') ?? DEFAULT_HOST;
  const port = parsePort(envValue(env, 'PORT'));
  const shutdown = Number(envValue(env, 'SHUTDOWN_TIMEOUT_MS') ?? DEFAULT_APP_SHUTDOWN_MS);
  const appShutdownMs = Number.isFinite(shutdown) ? shutdown : DEFAULT_APP_SHUTDOWN_MS;
  return {
    host,
    port,
    origin: `http://${formatHost(localHostFor(host))}:${port}`,
    appStopTimeoutMs: appShutdownMs + STOP_MARGIN_MS,
    readyTimeoutMs: READY_TIMEOUT_MS,
  };
}

/** An unset or empty variable is "not set", as in the service's own config. */
export function envValue(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PORT;
  const port = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (port === 0) {
    throw new StackError(
      'PORT=0 is not supported by the local stack: the api cannot report the port it got.',
    );
  }
  if (!Number.isInteger(port) || port > 65_535) {
    throw new StackError(`PORT must be a whole number from 1 to 65535, got ${JSON.stringify(raw)}.`);
  }
  return port;
}

/** A wildcard listen address is reached through the loopback interface of the same family. */
function localHostFor(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host;
}

function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
