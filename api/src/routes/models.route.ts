import type { FastifyInstance } from 'fastify';
import { type Catalogue, toPublicModel } from '../../../shared/src/catalogue/catalogue.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';
import { errorResponses, jsonResponse, PUBLIC } from '../openapi/responses.ts';
import { modelListSchema, modelSchema } from '../schemas/model.schema.ts';

export interface ModelsRouteDeps {
  readonly catalogue: Catalogue;
}

/**
 * The public model catalogue: no key, no rate limit. Ids contain slashes, so the single-model route
 * takes the rest of the path; `%2F`-encoded slashes are decoded like literal ones.
 */
export async function modelsRoutes(app: FastifyInstance, deps: ModelsRouteDeps): Promise<void> {
  const visible = deps.catalogue.list().filter((model) => model.enabled);
  const list = { object: 'list', data: visible.map(toPublicModel) };
  const byId = new Map(list.data.map((model) => [model.id, model]));

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
    async () => list,
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
      const model = id === undefined ? undefined : byId.get(id);
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
