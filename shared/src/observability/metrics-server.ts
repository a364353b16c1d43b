import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsConfig } from '../config/config.ts';
import { AppError, errors } from '../errors/app-error.ts';
import type { Logger } from '../logging/logger.ts';
import { metricsAccess, metricsTokenRequired } from './metrics-access.ts';
import { METRICS_CONTENT_TYPE, metricsText } from './registry.ts';

/** The metrics-only HTTP server of a process (`METRICS_HOST`:`METRICS_PORT`). */
export interface MetricsServer {
  /** The port it listens on. */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (this process's registry) on its own address, for the workers, which have
 * no other HTTP server, and for an api whose metrics are scraped apart from its public port. The
 * token is required when one is configured. Anything else answers 404 in the service's error format.
 */
export async function startMetricsServer(
  config: MetricsConfig & { readonly port: number },
  logger: Logger,
): Promise<MetricsServer> {
  const allowed = metricsAccess(config.token);
  const server = createServer((request, response) => {
    void answer(request, response, allowed).catch((err: unknown) => {
      logger.error({ err }, 'metrics could not be collected');
      sendError(
        response,
        new AppError(500, 'server_error', 'internal_error', 'The metrics could not be collected.'),
      );
    });
  });
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  logger.info({ host: config.host, port }, 'metrics listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  allowed: (authorization: string | undefined) => boolean,
): Promise<void> {
  const path = (request.url ?? '/').split('?')[0] ?? '/';
  if (request.method !== 'GET' || path !== '/metrics') {
    sendError(response, errors.routeNotFound(request.method ?? '', path));
    return;
  }
  if (!allowed(request.headers.authorization)) {
    sendError(response, metricsTokenRequired());
    return;
  }
  const text = await metricsText();
  response.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(text);
}

function sendError(response: ServerResponse, error: AppError): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response
    .writeHead(error.status, { 'content-type': 'application/json' })
    .end(JSON.stringify(error.toBody()));
}
