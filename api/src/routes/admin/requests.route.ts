import type { FastifyInstance } from 'fastify';
import type { RequestLogStore } from '../../../../shared/src/request-log/request-log-store.ts';
import { requestRecordObject } from '../../../../shared/src/request-log/request-record.ts';
import { errorResponses, jsonResponse, OPERATOR } from '../../openapi/responses.ts';
import { type AdminAuth, requireAdminToken } from '../../plugins/admin-auth.ts';
import { parseRequestListQuery } from '../../request-log/list-query.ts';
import { findRequest, listRequests, requestListObject } from '../../request-log/read-request-log.ts';
import {
  requestListQuerySchema,
  requestListSchema,
  requestRecordSchema,
} from '../../schemas/request-record.schema.ts';
import { idParamsSchema } from './admin.schema.ts';
import { strictValidatorCompiler } from './admin-validation.ts';

export interface AdminRequestsRouteOptions extends AdminAuth {
  /** The log as this process reads it (the writer: its own queued records read). */
  readonly requestLog: Pick<RequestLogStore, 'findById' | 'list'>;
}

const tags = ['Operator: requests'];

/** Operator API: the request log of every account, by id and in filtered pages (docs/request-log.md). */
export async function adminRequestsRoutes(
  app: FastifyInstance,
  options: AdminRequestsRouteOptions,
): Promise<void> {
  requireAdminToken(app, options);
  app.setValidatorCompiler(strictValidatorCompiler);
  const store = options.requestLog;

  app.get<{ Params: { id: string } }>(
    '/requests/:id',
    {
      schema: {
        tags,
        operationId: 'getRequestRecord',
        summary: 'A request by its X-Request-Id',
        params: { ...idParamsSchema, properties: { id: { type: 'string', minLength: 1, maxLength: 200 } } },
        response: {
          200: jsonResponse('The request’s record.', requestRecordSchema),
          ...errorResponses(OPERATOR, { 404: 'No request of this id (`invalid_request_error`).' }),
        },
      },
    },
    async (request) => requestRecordObject(await findRequest(store, request.params.id, undefined)),
  );

  app.get(
    '/requests',
    {
      schema: {
        tags,
        operationId: 'listRequestRecords',
        summary: 'Requests, newest first',
        description:
          'A page of the request log, newest first, with keyset pagination: pass `next_cursor` as `cursor` for the next page (records written meanwhile never repeat or shift a page). Filters combine. 400 for an unknown filter, a malformed cursor, `from` after `to`, or `limit` outside 1–200.',
        querystring: requestListQuerySchema,
        response: {
          200: jsonResponse('A page of records.', requestListSchema),
          ...errorResponses(OPERATOR),
        },
      },
    },
    async (request) => requestListObject(await listRequests(store, parseRequestListQuery(request.query))),
  );
}
