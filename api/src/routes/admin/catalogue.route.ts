import type { FastifyInstance } from 'fastify';
import type { CatalogueAdmin, ModelPatch } from '../../../../shared/src/catalogue/live/catalogue-admin.ts';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { errorResponses, jsonResponse, OPERATOR, WITH_BODY } from '../../openapi/responses.ts';
import { type AdminAuth, requireAdminToken } from '../../plugins/admin-auth.ts';
import { strictValidatorCompiler } from './admin-validation.ts';
import {
  changeListSchema,
  changesQuerySchema,
  exchangeRateBodySchema,
  exchangeRateSchema,
  markupBodySchema,
  markupSchema,
  modelPatchSchema,
  operatorModelListSchema,
  operatorModelSchema,
  toChangeView,
  toOperatorModel,
} from './catalogue.schema.ts';

export interface AdminCatalogueRouteOptions extends AdminAuth {
  readonly catalogueAdmin: CatalogueAdmin;
}

const tags = ['Operator: catalogue'];
const noApi = { 404: 'No operator API (`ADMIN_TOKEN` unset).' } as const;
const modelParams = {
  type: 'object',
  properties: {
    '*': {
      type: 'string',
      description: 'The model id, such as `openai/gpt-4o-mini`: its slash as is, or `%2F`-encoded.',
    },
  },
} as const;
const DEFAULT_CHANGES = 20;

/**
 * Operator API of the live catalogue (docs/catalogue.md): models (disabled ones included) with
 * their list and effective prices, enabling and pricing a model, the exchange rate, the markup,
 * and the history of changes. Every change reaches every api and worker process within 2 s.
 */
export async function adminCatalogueRoutes(
  app: FastifyInstance,
  options: AdminCatalogueRouteOptions,
): Promise<void> {
  requireAdminToken(app, options);
  app.setValidatorCompiler(strictValidatorCompiler);
  const admin = options.catalogueAdmin;

  app.get(
    '/models',
    {
      schema: {
        tags,
        operationId: 'listCatalogueModels',
        summary: 'List every catalogue model, disabled ones included',
        response: {
          200: jsonResponse('The models.', operatorModelListSchema),
          ...errorResponses(OPERATOR, noApi),
        },
      },
    },
    async () => {
      const snapshot = admin.snapshot();
      return { object: 'list', data: snapshot.list().map((model) => toOperatorModel(snapshot, model)) };
    },
  );

  app.patch<{ Params: { '*': string }; Body: ModelPatch }>(
    '/models/*',
    {
      schema: {
        tags,
        operationId: 'updateCatalogueModel',
        summary: 'Enable, disable or price a model',
        description:
          'A disabled model leaves `/v1/models` and answers 404 `model_not_found` on every endpoint (jobs already admitted finish). `price_override` replaces the list price (null: back to it). Requests already admitted keep the price they were admitted at.',
        params: modelParams,
        body: modelPatchSchema,
        response: {
          200: jsonResponse('The model after the change.', operatorModelSchema),
          ...errorResponses([...OPERATOR, ...WITH_BODY], {
            400: 'A field is invalid: a negative or non-numeric price, an unknown field (the message names it).',
            404: '`model_not_found`: no catalogue model has this id; or no operator API.',
          }),
        },
      },
    },
    async (request) => {
      const id = decodeModelId(request.params['*']);
      const model = await admin.updateModel(id, request.body ?? {}, 'admin-api');
      request.log.info({ model: id, change: request.body }, 'catalogue model changed');
      return toOperatorModel(admin.snapshot(), model);
    },
  );

  app.get(
    '/exchange-rate',
    {
      schema: {
        tags,
        operationId: 'retrieveExchangeRate',
        summary: 'Read the exchange rate',
        response: {
          200: jsonResponse('The rate in Toman per US dollar.', exchangeRateSchema),
          ...errorResponses(OPERATOR, noApi),
        },
      },
    },
    async () => exchangeRateView(admin),
  );

  app.put<{ Body: { irt_per_usd: number } }>(
    '/exchange-rate',
    {
      schema: {
        tags,
        operationId: 'updateExchangeRate',
        summary: 'Set the exchange rate',
        description: 'Reprices every model priced from its list price; overridden prices stay.',
        body: exchangeRateBodySchema,
        response: {
          200: jsonResponse('The new rate.', exchangeRateSchema),
          ...errorResponses([...OPERATOR, ...WITH_BODY], {
            ...noApi,
            400: 'A rate of 0 or less, not a number, or an unknown field.',
          }),
        },
      },
    },
    async (request) => {
      await admin.setExchangeRate(request.body.irt_per_usd, 'admin-api');
      request.log.info({ irtPerUsd: request.body.irt_per_usd }, 'exchange rate set');
      return exchangeRateView(admin);
    },
  );

  app.get(
    '/markup',
    {
      schema: {
        tags,
        operationId: 'retrieveMarkup',
        summary: 'Read the markup on list prices',
        response: {
          200: jsonResponse('The markup in percent.', markupSchema),
          ...errorResponses(OPERATOR, noApi),
        },
      },
    },
    async () => ({ markup_percent: admin.snapshot().markupPercent }),
  );

  app.put<{ Body: { markup_percent: number } }>(
    '/markup',
    {
      schema: {
        tags,
        operationId: 'updateMarkup',
        summary: 'Set the markup on list prices',
        description: 'Applies to every model priced from its list price; overridden prices stay.',
        body: markupBodySchema,
        response: {
          200: jsonResponse('The new markup.', markupSchema),
          ...errorResponses([...OPERATOR, ...WITH_BODY], {
            ...noApi,
            400: 'Below −90, above 1000, not a number, or an unknown field.',
          }),
        },
      },
    },
    async (request) => {
      await admin.setMarkup(request.body.markup_percent, 'admin-api');
      request.log.info({ markupPercent: request.body.markup_percent }, 'markup set');
      return { markup_percent: admin.snapshot().markupPercent };
    },
  );

  app.get<{ Querystring: { limit?: string; cursor?: string } }>(
    '/catalogue/changes',
    {
      schema: {
        tags,
        operationId: 'listCatalogueChanges',
        summary: 'The history of catalogue changes, newest first',
        querystring: changesQuerySchema,
        response: {
          200: jsonResponse('A page of changes; `next_cursor` null on the last.', changeListSchema),
          ...errorResponses(OPERATOR, {
            ...noApi,
            400: 'A `limit` outside 1–100, or a cursor this list did not give.',
          }),
        },
      },
    },
    async (request) => {
      const limit = request.query.limit === undefined ? DEFAULT_CHANGES : Number(request.query.limit);
      const page = await admin.listChanges({ limit, cursor: request.query.cursor });
      return { object: 'list', data: page.changes.map(toChangeView), next_cursor: page.nextCursor };
    },
  );
}

function exchangeRateView(admin: CatalogueAdmin) {
  const rate = admin.snapshot().exchangeRate;
  return { irt_per_usd: rate.irtPerUsd, as_of: rate.asOf };
}

function decodeModelId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw errors.modelNotFound(raw);
  }
}
