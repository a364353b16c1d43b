import type { FastifyInstance } from 'fastify';
import { accountErrors } from '../../../../shared/src/accounts/account-errors.ts';
import type { CatalogueAdmin, ModelPatch } from '../../../../shared/src/catalogue/live/catalogue-admin.ts';
import { unavailableDefaultModels } from '../../../../shared/src/catalogue/live/open-live-catalogue.ts';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { guardConsoleRoutes } from '../../console/console-auth.ts';
import { strictValidatorCompiler } from '../admin/admin-validation.ts';
import {
  changeListSchema,
  changesQuerySchema,
  exchangeRateBodySchema,
  markupBodySchema,
  modelPatchSchema,
  operatorModelSchema,
  priceMultiplierSchema,
  toChangeView,
  toOperatorModel,
} from '../admin/catalogue.schema.ts';
import { consoleErrorResponses } from './console.schema.ts';
import type { ConsoleDeps } from './console-deps.ts';

const catalogueViewSchema = {
  type: 'object',
  required: ['data', 'irt_per_usd', 'as_of', 'markup_percent', 'unavailable_defaults'],
  properties: {
    data: { type: 'array', items: operatorModelSchema },
    irt_per_usd: { type: 'number' },
    as_of: { type: 'string' },
    markup_percent: { type: 'number' },
    unavailable_defaults: {
      type: 'array',
      items: {
        type: 'object',
        required: ['variable', 'model'],
        properties: { variable: { type: 'string' }, model: { type: 'string' } },
      },
    },
  },
} as const;

const pricePlanSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['price_multiplier'],
  properties: { price_multiplier: priceMultiplierSchema },
} as const;

const accountParams = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

/**
 * The operator's "Models and prices" page and the account page's price plan (docs/catalogue.md):
 * the same changes as the operator API, recorded with the actor `operator`.
 */
export async function catalogueRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'operator',
  );
  app.setValidatorCompiler(strictValidatorCompiler);
  const admin: CatalogueAdmin = deps.catalogueAdmin;
  const view = () => {
    const snapshot = admin.snapshot();
    return {
      data: snapshot.list().map((model) => toOperatorModel(snapshot, model)),
      irt_per_usd: snapshot.exchangeRate.irtPerUsd,
      as_of: snapshot.exchangeRate.asOf,
      markup_percent: snapshot.markupPercent,
      unavailable_defaults: unavailableDefaultModels(snapshot, deps.config),
    };
  };

  app.get(
    '/catalogue',
    { schema: { response: { 200: catalogueViewSchema, ...consoleErrorResponses } } },
    async () => view(),
  );

  app.patch<{ Params: { '*': string }; Body: ModelPatch }>(
    '/catalogue/models/*',
    { schema: { body: modelPatchSchema, response: { 200: operatorModelSchema, ...consoleErrorResponses } } },
    async (request) => {
      let id: string;
      try {
        id = decodeURIComponent(request.params['*']);
      } catch {
        throw errors.modelNotFound(request.params['*']);
      }
      const model = await admin.updateModel(id, request.body ?? {}, 'operator');
      request.log.info({ model: id, change: request.body }, 'catalogue model changed in the console');
      return toOperatorModel(admin.snapshot(), model);
    },
  );

  app.put<{ Body: { irt_per_usd: number } }>(
    '/catalogue/exchange-rate',
    {
      schema: {
        body: exchangeRateBodySchema,
        response: { 200: catalogueViewSchema, ...consoleErrorResponses },
      },
    },
    async (request) => {
      await admin.setExchangeRate(request.body.irt_per_usd, 'operator');
      return view();
    },
  );

  app.put<{ Body: { markup_percent: number } }>(
    '/catalogue/markup',
    { schema: { body: markupBodySchema, response: { 200: catalogueViewSchema, ...consoleErrorResponses } } },
    async (request) => {
      await admin.setMarkup(request.body.markup_percent, 'operator');
      return view();
    },
  );

  app.get<{ Querystring: { limit?: string; cursor?: string } }>(
    '/catalogue/changes',
    {
      schema: {
        querystring: changesQuerySchema,
        response: { 200: changeListSchema, ...consoleErrorResponses },
      },
    },
    async (request) => {
      const limit = request.query.limit === undefined ? 20 : Number(request.query.limit);
      const page = await admin.listChanges({ limit, cursor: request.query.cursor });
      return { object: 'list', data: page.changes.map(toChangeView), next_cursor: page.nextCursor };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/accounts/:id/price-plan',
    { schema: { params: accountParams, response: { 200: pricePlanSchema, ...consoleErrorResponses } } },
    async (request) => {
      if ((await deps.accounts.accounts.findById(request.params.id)) === null)
        throw accountErrors.accountNotFound(request.params.id);
      return { price_multiplier: admin.snapshot().priceMultiplierOf(request.params.id) };
    },
  );

  app.put<{ Params: { id: string }; Body: { price_multiplier: number } }>(
    '/accounts/:id/price-plan',
    {
      schema: {
        params: accountParams,
        body: pricePlanSchema,
        response: { 200: pricePlanSchema, ...consoleErrorResponses },
      },
    },
    async (request) => {
      if ((await deps.accounts.accounts.findById(request.params.id)) === null)
        throw accountErrors.accountNotFound(request.params.id);
      await admin.setPriceMultiplier(request.params.id, request.body.price_multiplier, 'operator');
      return { price_multiplier: admin.snapshot().priceMultiplierOf(request.params.id) };
    },
  );
}
