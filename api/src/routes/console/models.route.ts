import type { FastifyInstance } from 'fastify';
import type { Catalogue } from '../../../../shared/src/catalogue/catalogue.ts';
import type { LiveCatalogue } from '../../../../shared/src/catalogue/live/live-catalogue.ts';
import { publicModelList } from '../../../../shared/src/catalogue/live/public-list.ts';
import { sessionTokenOf } from '../../console/session-cookie.ts';
import { modelListSchema } from '../../schemas/model.schema.ts';
import type { ConsoleDeps } from './console-deps.ts';

/**
 * `GET /models`: the public catalogue with its IRT prices, for anyone (the pricing page), read from
 * the current snapshot at each request. A signed-in holder whose account has a price plan sees
 * its own prices (the list prices × its `price_multiplier`), as its requests are charged.
 */
export async function modelsRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  app.get('/models', { schema: { response: { 200: modelListSchema } } }, async (request) => {
    const catalogue = await catalogueOfCaller(deps, sessionTokenOf(request));
    const { object, data } = publicModelList(catalogue);
    return { object, data };
  });
}

async function catalogueOfCaller(deps: ConsoleDeps, token: string | undefined): Promise<Catalogue> {
  const live = deps.catalogue as Partial<LiveCatalogue>;
  if (token === undefined || live.current === undefined) return deps.catalogue;
  const session = await deps.console.sessions.find(token).catch(() => null);
  const snapshot = live.current();
  return session?.accountId == null ? snapshot : snapshot.forAccount(session.accountId);
}
