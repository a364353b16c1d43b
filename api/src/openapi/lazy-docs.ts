import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifySchema,
  type HTTPMethods,
} from 'fastify';
import { DOCS_PATH, isDocumented, OPENAPI_PATH, registerDocsPlugins } from './openapi.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI document of the app's routes, as `/openapi.json` serves it. */
    openApiDocument(): Promise<Record<string, unknown>>;
  }
}

/** What the document is made of, per route: the options `@fastify/swagger` reads. */
interface DocumentedRoute {
  readonly method: HTTPMethods | HTTPMethods[];
  readonly url: string;
  readonly schema: FastifySchema | undefined;
}

/** Documented routes answer exactly what their handler gives, as a route without a schema would. */
const serializeAsGiven = () => (data: unknown) => JSON.stringify(data);

/** The docs app's answer headers that belong to its own (injected) connection, not to ours. */
const OWN_CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/**
 * The OpenAPI document at `/openapi.json` and its reference page at `/docs`, neither needing a key,
 * served by a second Fastify app made on the first request for either: the document's plugins, its
 * components and the page's assets cost the api nothing until someone reads them (the shared
 * schemas alone, added to the api's own app, cost every route's compiled serializer memory). That
 * app registers the documented routes again, by their method, URL and schema, after the plugins,
 * as the api registers them after the document; it answers through `inject`, its status, headers
 * and bytes passed on as they are, a path it does not know answered by the api's own 404.
 * Registered before the routes. The documented routes' `schema.response` only documents: they are
 * serialized as if they had none (`JSON.stringify`), so documenting an answer never changes a byte
 * of it.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  const routes: DocumentedRoute[] = [];
  app.addHook('onRoute', (route) => {
    if (!isDocumented(route.url)) return;
    if (route.serializerCompiler === undefined) route.serializerCompiler = serializeAsGiven;
    // HEAD routes are Fastify's own copies of the GET ones, which the document leaves out.
    if (route.method !== 'HEAD') routes.push({ method: route.method, url: route.url, schema: route.schema });
  });
  let docs: Promise<FastifyInstance> | undefined;
  const docsApp = () => {
    docs ??= buildDocsApp(routes).catch((err: unknown) => {
      docs = undefined; // the next request tries again
      throw err;
    });
    return docs;
  };
  app.decorate('openApiDocument', async () => {
    await app.ready(); // every route registered
    return (await docsApp()).swagger() as unknown as Record<string, unknown>;
  });
  const answer = async (request: FastifyRequest, reply: FastifyReply) =>
    forward(await docsApp(), request, reply);
  for (const url of [OPENAPI_PATH, DOCS_PATH, `${DOCS_PATH}/*`]) app.get(url, answer);
  app.addHook('onClose', async () => {
    if (docs !== undefined) await (await docs.catch(() => undefined))?.close();
  });
}

async function buildDocsApp(routes: readonly DocumentedRoute[]): Promise<FastifyInstance> {
  const docs = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
  // The routes are there for the document only: nothing is validated nor serialized through them.
  docs.setValidatorCompiler(() => () => true);
  docs.setSerializerCompiler(serializeAsGiven);
  await registerDocsPlugins(docs);
  const documentOnly = async () => undefined;
  for (const route of routes) docs.route({ ...route, handler: documentOnly });
  await docs.ready();
  return docs;
}

/**
 * The docs app's answer to `request`, given as the api's own. A HEAD request is asked as a GET:
 * the api's HEAD route then sends the headers of the whole answer, its length included. A path the
 * docs app does not know gets the api's 404, with the headers the page's plugin set (its CSP).
 */
async function forward(docs: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
  const answer = await docs.inject({ method: 'GET', url: request.url, headers: request.headers });
  const notFound = answer.statusCode === 404;
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || OWN_CONNECTION_HEADERS.has(name)) continue;
    if (!(notFound && name === 'content-type')) reply.header(name, value);
  }
  if (notFound) return reply.callNotFound();
  reply.code(answer.statusCode);
  // Nothing to send (a redirect, a 304): no payload, so no content type is made up for it.
  return answer.rawPayload.length === 0 ? reply.send() : reply.send(answer.rawPayload);
}
