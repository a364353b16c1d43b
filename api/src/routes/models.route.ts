import type { FastifyInstance } from 'fastify';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import { publicModelList } from '../../../shared/src/catalogue/live/public-list.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';
import { errorResponses, jsonResponse, PUBLIC } from '../openapi/responses.ts';
import { modelListSchema, modelSchema } from '../schemas/model.schema.ts';

export interface ModelsRouteDeps {
  readonly catalogue: Catalogue;
}

/**
 * The public model catalogue: no key, no rate limit. Ids contain slashes, so the single-model route
 * takes the rest of the path; `%2F`-encoded slashes are decoded like literal ones. A model the
 * operator disabled leaves both at once (the list is the current snapshot's).
 */
export async function modelsRoutes(app: FastifyInstance, deps: ModelsRouteDeps): Promise<void> {
  // Read per request: the list of the catalogue's current snapshot (a change shows at once).
  const listNow = () => publicModelList(deps.catalogue);

  app.get(
    '/v1/models',
    {
      schema: {
        tags: ['Models'],
        operationId: 'listModels',
        summary: 'List the models',
        security: [],
        response: { 200: jsonResponse('The models.', modelListSchema), ...errorResponses(PUBLIC) },
      },
    },
    async () => {
      const { object, data } = listNow();
      return { object, data };
    },
  );

  app.get<{ Params: { '*': string } }>(
    '/v1/models/*',
    {
      schema: {
        tags: ['Models'],
        operationId: 'retrieveModel',
        summary: 'Retrieve a model',
        security: [],
        params: {
          type: 'object',
          properties: {
            '*': {
              type: 'string',
              description: 'The model id, such as `openai/gpt-4o-mini`: its slash as is, or `%2F`-encoded.',
            },
          },
        },
        response: {
          200: jsonResponse('The model.', modelSchema),
          ...errorResponses(PUBLIC, { 404: '`model_not_found`: no enabled model has this id.' }),
        },
      },
    },
    async (request) => {
      const id = decodeModelId(request.params['*']);
      const model = id === undefined ? undefined : listNow().byId.get(id);
      if (model === undefined) throw errors.modelNotFound(id ?? request.params['*']);
      return model;
    },
  );
}

function decodeModelId(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}
