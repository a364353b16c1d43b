import type { FastifyInstance } from 'fastify';
import type { RequestLogStore } from '../../../shared/src/request-log/request-log-store.ts';
import { requestRecordObject } from '../../../shared/src/request-log/request-record.ts';
import { requireAdmission } from '../admission/require-admission.ts';
import { errorResponses, jsonResponse, KEYED, rateLimitHeaders } from '../openapi/responses.ts';
import { findRequest } from '../request-log/read-request-log.ts';
import { requestRecordSchema } from '../schemas/request-record.schema.ts';

export interface RequestsRouteDeps {
  /** The log as this process reads it (the writer: its own queued records read). */
  readonly requestLog: Pick<RequestLogStore, 'findById'>;
}

/** `GET /v1/requests/{id}` (an extension): the record of a request of the key's own account. */
export async function requestsRoutes(app: FastifyInstance, deps: RequestsRouteDeps): Promise<void> {
  app.get<{ Params: { id: string } }>(
    '/v1/requests/:id',
    {
      schema: {
        tags: ['Requests'],
        operationId: 'getRequest',
        summary: 'A request by its X-Request-Id',
        description:
          'The request log’s record of a request of this key’s account (any of its keys), by the `X-Request-Id` of its answer. Another account’s request, or an unknown id, is 404. Records are kept `REQUEST_LOG_RETENTION_DAYS` (30 by default).',
        params: {
          type: 'object',
          required: ['id'],
          properties: { id: { type: 'string', description: 'The `X-Request-Id` (`req_…`).' } },
        },
        response: {
          200: jsonResponse('The request’s record.', requestRecordSchema, rateLimitHeaders),
          ...errorResponses(KEYED, {
            404: 'No request of this id for this account (`invalid_request_error`).',
          }),
        },
      },
    },
    async (request) => {
      const { key } = requireAdmission(request);
      const record = await findRequest(deps.requestLog, request.params.id, key.accountId);
      return requestRecordObject(record);
    },
  );
}
