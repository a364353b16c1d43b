import { Agent, type Dispatcher, FormData, errors as undiciErrors } from 'undici';
import type { UpstreamRequest } from '../providers/chat-types.ts';
import type { MediaHttpRequest } from '../providers/media-types.ts';
import { callUpstream } from './upstream-call.ts';

export interface UpstreamClientOptions {
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly connectionsPerOrigin: number;
}

/** An upstream answer whose headers arrived; the body is still streaming (upstream-body.ts). */
export interface UpstreamResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: AsyncIterable<Uint8Array> & {
    text(): Promise<string>;
    json(): Promise<unknown>;
    arrayBuffer(): Promise<ArrayBuffer>;
    dump(): Promise<void>;
  };
}

/** A native API's request: its body forwarded byte for byte. */
export interface ForwardRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** Why an upstream call produced no answer at all (no HTTP status). */
export type TransportFailure = 'connect_timeout' | 'timeout' | 'connection' | 'aborted';

/** The upstream did not answer: it could not be reached, timed out, or the call was aborted. */
export class UpstreamTransportError extends Error {
  readonly failure: TransportFailure;
  constructor(failure: TransportFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpstreamTransportError';
    this.failure = failure;
  }
}

/** The process's undici Agent for provider requests: a keep-alive pool per origin, with its timeouts. */
export function createUpstreamAgent(options: UpstreamClientOptions): Agent {
  return new Agent({
    connections: options.connectionsPerOrigin,
    connectTimeout: options.connectTimeoutMs,
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    keepAliveTimeout: 30_000,
  });
}

/**
 * Sends provider requests over pooled keep-alive connections (one undici Agent for the process:
 * a pool per origin), through the dispatcher (upstream-call.ts). Bodies are handed back as they
 * arrive, never buffered whole here.
 */
export class UpstreamClient {
  readonly #agent: Agent;

  constructor(options: UpstreamClientOptions) {
    this.#agent = createUpstreamAgent(options);
  }

  /** POSTs the request; resolves once the status and headers arrived (any status). */
  async send(request: UpstreamRequest, signal?: AbortSignal): Promise<UpstreamResponse> {
    return this.#call(
      request.url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...request.headers },
        body: request.body,
      },
      signal,
    );
  }

  /** Sends a media request (GET, JSON POST or multipart POST); resolves once headers arrived. */
  async sendMedia(request: MediaHttpRequest, signal?: AbortSignal): Promise<UpstreamResponse> {
    return this.#call(
      request.url,
      { method: request.method, headers: request.headers, body: encodeBody(request.body) },
      signal,
    );
  }

  /**
   * POSTs bytes as they are (a native API's body, forwarded unchanged); resolves once the status
   * and headers arrived (any status).
   */
  async forward(request: ForwardRequest, signal?: AbortSignal): Promise<UpstreamResponse> {
    return this.#call(request.url, { method: 'POST', headers: request.headers, body: request.body }, signal);
  }

  /** One call through the pool of `url`'s origin; a call that got no answer throws classified. */
  async #call(
    url: string,
    options: Omit<Dispatcher.DispatchOptions, 'origin' | 'path'>,
    signal: AbortSignal | undefined,
  ): Promise<UpstreamResponse> {
    try {
      return await callUpstream(this.#agent, { ...originAndPath(url), ...options }, signal);
    } catch (err) {
      throw classifyTransportError(err);
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

function encodeBody(body: MediaHttpRequest['body']): string | FormData | undefined {
  if (body === undefined || typeof body === 'string') return body;
  const form = new FormData();
  for (const [name, value] of Object.entries(body.fields)) form.append(name, value);
  if (body.file !== undefined) {
    const { field, fileName, contentType, data } = body.file;
    form.append(field, new Blob([data], { type: contentType }), fileName);
  }
  return form;
}

/** Where undici sends a request: the URL parsed once (origin for the pool, path for the request line). */
function originAndPath(url: string): { origin: string; path: string } {
  const parsed = new URL(url);
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
}

/** Maps undici's failures to the few kinds the gateway answers differently (504 vs 502). */
export function classifyTransportError(err: unknown): UpstreamTransportError {
  if (err instanceof UpstreamTransportError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof undiciErrors.ConnectTimeoutError)
    return new UpstreamTransportError('connect_timeout', message, { cause: err });
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return new UpstreamTransportError('timeout', message, { cause: err });
  }
  if (
    err instanceof Error &&
    (err.name === 'AbortError' || err instanceof undiciErrors.RequestAbortedError)
  ) {
    return new UpstreamTransportError('aborted', message, { cause: err });
  }
  return new UpstreamTransportError('connection', message, { cause: err });
}
