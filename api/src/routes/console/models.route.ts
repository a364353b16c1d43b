import type { FastifyInstance } from 'fastify';
import { toPublicModel } from '../../../../shared/src/catalogue/catalogue.ts';
import { modelListSchema } from '../../schemas/model.schema.ts';
import type { ConsoleDeps } from './console-deps.ts';

/** `GET /models`: the public catalogue with its IRT prices, for anyone (the pricing page). */
export async function modelsRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  const list = {
    object: 'list',
    data: deps.catalogue
      .list()
      .filter((model) => model.enabled)
      .map(toPublicModel),
  };
  app.get('/models', { schema: { response: { 200: modelListSchema } } }, async () => list);
}
