import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestRecordObject } from '../../../../shared/src/request-log/request-record.ts';
import { guardConsoleRoutes, requireHolderAccount } from '../../console/console-auth.ts';
import { LIST_FILTERS, parseRequestListQuery } from '../../request-log/list-query.ts';
import { findRequest, listRequests, requestListObject } from '../../request-log/read-request-log.ts';
import { requestsCsv } from '../../request-log/requests-csv.ts';
import type { ConsoleDeps } from './console-deps.ts';

/** The store the console reads the request log from. */
export interface ConsoleRequestLogDeps extends ConsoleDeps {
  /** The log as this process reads it (the writer: its own queued records read). */
  readonly requestLog: Parameters<typeof requestsCsv>[0] & Parameters<typeof findRequest>[0];
}

const HOLDER_FILTERS = [...LIST_FILTERS.filter((name) => name !== 'account_id'), 'format'];
const OPERATOR_FILTERS = [...LIST_FILTERS, 'format'];

/**
 * The request log in the console (docs/request-log.md): the holder's own account under
 * `/requests`, every account for the operator under `/operator/requests` (with `account_id`).
 * A list page (JSON), or the whole filtered range as CSV (`format=csv`), streamed; one record by id.
 */
export async function holderRequestsRoutes(app: FastifyInstance, deps: ConsoleRequestLogDeps): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'holder',
  );
  const store = deps.requestLog;
  app.get('/requests', async (request, reply) =>
    sendRequests(store, request, reply, HOLDER_FILTERS, requireHolderAccount(request).id),
  );
  app.get<{ Params: { id: string } }>('/requests/:id', async (request) =>
    requestRecordObject(await findRequest(store, request.params.id, requireHolderAccount(request).id)),
  );
}

export async function operatorRequestsRoutes(
  app: FastifyInstance,
  deps: ConsoleRequestLogDeps,
): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'operator',
  );
  const store = deps.requestLog;
  app.get('/operator/requests', async (request, reply) =>
    sendRequests(store, request, reply, OPERATOR_FILTERS, undefined),
  );
  app.get<{ Params: { id: string } }>('/operator/requests/:id', async (request) =>
    requestRecordObject(await findRequest(store, request.params.id, undefined)),
  );
}

async function sendRequests(
  store: ConsoleRequestLogDeps['requestLog'],
  request: FastifyRequest,
  reply: FastifyReply,
  allowed: readonly string[],
  ownAccount: string | undefined,
) {
  const { format, ...filters } = (request.query ?? {}) as Record<string, unknown>;
  if (format !== undefined && format !== 'csv' && format !== 'json')
    return reply.code(400).send({
      error: {
        message: '`format` must be `csv` or `json`.',
        type: 'invalid_request_error',
        code: 'invalid_request_error',
        param: null,
      },
    });
  const query = parseRequestListQuery(filters, allowed);
  const scoped = ownAccount === undefined ? query : { ...query, accountId: ownAccount };
  if (format === 'csv') {
    const { limit: _limit, cursor: _cursor, ...range } = scoped;
    return reply
      .code(200)
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="requests.csv"')
      .send(requestsCsv(store, range));
  }
  return requestListObject(await listRequests(store, scoped));
}
