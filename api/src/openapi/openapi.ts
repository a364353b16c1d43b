import { readFileSync } from 'node:fs';
import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { componentSchemas, referencingComponents } from './components.ts';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * Documentation only: the `multipart/form-data` fields of a route that reads its form itself
     * (Fastify never validates it; the document shows it as the request body).
     */
    multipartBody?: object;
  }
}

/** Where the document is served (JSON; also at `/docs/json`, and as YAML at `/docs/yaml`). */
export const OPENAPI_PATH = '/openapi.json';
/** Where its reference page (Swagger UI, served from the api itself) is. */
export const DOCS_PATH = '/docs';

/**
 * The version of the API the document describes (`info.version`): 1.0.0 for every endpoint under
 * `/v1`. It is the contract's version, not the software's: a release that keeps the contract
 * keeps it. The release that serves the document is `x-gateway-version` (the package's version).
 */
export const API_VERSION = '1.0.0';

const { version: releaseVersion } = JSON.parse(
  readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
) as { version: string };

const DESCRIPTION = `The gateway's HTTP API, generated from the routes' own schemas.

- **Public API** (\`/v1\`): the chat-completion convention (the official OpenAI SDKs and the clients of
  that convention work by changing only the base URL and the key), with the gateway's extensions:
  the cost of every answer (\`service\`, or \`X-Service-Cost\`), the wallet, usage reports, videos.
  Money is in Toman (IRT), exact to 6 decimals. Authenticate with the key (\`hk-…\`).
- **Operator API** (\`/admin/v1\`, the *Operator* tags): accounts, keys, top-ups, ledgers and console
  links, with the operator token (\`ADMIN_TOKEN\`); without a configured token it answers 404.

Every error answer is the \`Error\` envelope (the media endpoints' field validation: \`FieldErrors\`),
and every answer carries \`X-Request-Id\`.

Not described here, on the same address: the **provider-native APIs** under \`/anthropic\`,
\`/gemini\`, \`/openai\` and \`/elevenlabs\`, which pass each provider's own request, response and
stream formats through on the same keys, limits and wallet (\`docs/native.md\` of the repository);
the web console's own API under \`/console/api\` (\`docs/console.md\`); the operational
\`/healthz\`, \`/readyz\` and \`/metrics\`.
How this document is made and checked: \`docs/api.md\`.`;

/** The document's `info`; the release as an extension field (OpenAPI allows `x-` fields there). */
const INFO = {
  title: 'Model gateway API',
  version: API_VERSION,
  description: DESCRIPTION,
  'x-gateway-version': releaseVersion,
};

const TAGS = [
  { name: 'Models', description: 'The model catalogue: public, no key and no rate limit.' },
  {
    name: 'Chat',
    description: 'Chat completions, whole or streamed, over the model’s providers with fallback.',
  },
  { name: 'Embeddings', description: 'Vectors of text.' },
  { name: 'Images', description: 'Image generation, answered when the worker job is done.' },
  { name: 'Audio', description: 'Text to speech and speech to text, answered when the worker job is done.' },
  { name: 'Videos', description: 'Video renders: created at once (202), then polled and downloaded.' },
  { name: 'Account', description: 'The key’s account: its wallet and its usage.' },
  {
    name: 'Requests',
    description: 'The request log: any answer’s `X-Request-Id` looked up (the key’s own account only).',
  },
  { name: 'Operator: accounts', description: 'Open, find, read and (de)activate accounts.' },
  { name: 'Operator: keys', description: 'An account’s API keys and their settings.' },
  { name: 'Operator: wallet', description: 'Top-ups and the ledger of an account.' },
  {
    name: 'Operator: catalogue',
    description:
      'The live catalogue: enable, disable and price models, the exchange rate, the markup, the history of changes.',
  },
  { name: 'Operator: console links', description: 'One-time links setting an account’s console password.' },
  { name: 'Operator: requests', description: 'The request log of every account: by id, or filtered pages.' },
  {
    name: 'Operator: vouchers and payments',
    description: 'Prepaid vouchers, and the top-ups accounts paid through the payment gateway.',
  },
  {
    name: 'Operator: channels',
    description: 'Upstream channels: the credentials of each provider, their weights, priorities and health.',
  },
];

const SECURITY_SCHEMES = {
  ApiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key (`hk-…`) as `Authorization: Bearer`. Also accepted, in this order after it: the headers `x-api-key`, `x-goog-api-key`, `xi-api-key`, `x-key`, and the query parameter `key`.',
  },
  AdminToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator token (`ADMIN_TOKEN`) as `Authorization: Bearer`.',
  },
} as const;

/** The Swagger UI page loads nothing but from this origin, and is framed by nothing else. */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Swagger UI sets inline styles on its elements; scripts stay this origin's files only.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Whether a route is in the document: the public API (`/v1`) and the operator API (`/admin`). */
export function isDocumented(url: string): boolean {
  return url.startsWith('/v1/') || url.startsWith('/admin/');
}

/** A route's path in the document: Fastify's `:name` is `{name}`, and a trailing wildcard `{id}`. */
export function documentPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{id}');
}

/**
 * The OpenAPI 3.1 document (`@fastify/swagger`, from the routes' schemas) at `/openapi.json` and its
 * reference page at `/docs` (`@fastify/swagger-ui`), registered on `docs`, the app that serves
 * them (lazy-docs.ts): before the routes it documents, so the document sees them. Shared shapes are
 * components (components.ts); the routes other than the public and operator APIs are left out.
 * Both packages are imported here, on the first request for the document or the page: the api
 * loads neither until then.
 */
export async function registerDocsPlugins(docs: FastifyInstance): Promise<void> {
  const [{ default: swagger }, { default: swaggerUi }] = await Promise.all([
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ]);
  for (const schema of componentSchemas()) docs.addSchema(schema);
  await docs.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: INFO,
      tags: TAGS,
      security: [{ ApiKey: [] }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: documentRoute,
    // Always an OpenAPI document here (`openapi` is given); the Swagger 2 branch is the type's.
    transformObject: (built) =>
      'openapiObject' in built ? withHeaderObjects(built.openapiObject) : built.swaggerObject,
  });
  await docs.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: DOCS_CSP,
    theme: { title: 'Model gateway API' },
    // BaseLayout: the page without Swagger UI's bar for loading other documents.
    uiConfig: {
      layout: 'BaseLayout',
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
    },
  });
  docs.get(OPENAPI_PATH, { schema: { hide: true } }, async () => docs.swagger());
}

/**
 * One route as the document shows it: components as references, a documentation-only
 * `multipartBody` as the `multipart/form-data` body (Fastify never validates it), the operator API
 * under its token; undocumented routes hidden.
 */
const documentRoute: SwaggerTransform = ({ schema, url }: { schema?: FastifySchema; url: string }) => {
  if (!isDocumented(url)) return { schema: { ...schema, hide: true }, url };
  const { multipartBody, params, ...documented } = referencingComponents(schema ?? {}) as FastifySchema & {
    params?: { properties?: Record<string, unknown> };
  };
  return {
    url: documentPath(url),
    schema: {
      ...documented,
      ...(params === undefined ? {} : { params: wildcardAsId(params) }),
      ...(multipartBody === undefined ? {} : { body: multipartBody, consumes: ['multipart/form-data'] }),
      ...(url.startsWith('/admin/') ? { security: [{ AdminToken: [] }] } : {}),
    },
  };
};

/** Path parameters with Fastify's wildcard `*` named `id`, as `documentPath` names it. */
function wildcardAsId(params: { properties?: Record<string, unknown> }): object {
  const { '*': wildcard, ...named } = params.properties ?? {};
  if (wildcard === undefined) return params;
  return { ...params, required: ['id'], properties: { ...named, id: wildcard } };
}

/**
 * The routes write response headers as OpenAPI Header Objects (responses.ts); `@fastify/swagger`
 * takes each for a schema and wraps it in one. This unwraps them.
 */
function withHeaderObjects<Document extends { paths?: object }>(document: Document): Document {
  const paths = (document.paths ?? {}) as Record<
    string,
    Record<string, { responses?: Record<string, DocumentedResponse> }>
  >;
  for (const operation of Object.values(paths).flatMap((item) => Object.values(item))) {
    for (const response of Object.values(operation.responses ?? {})) {
      const headers = response.headers ?? {};
      for (const [name, header] of Object.entries(headers)) {
        const { schema, required } = header.schema as { schema: object; required?: boolean };
        headers[name] = { description: header.description, required: required === true, schema };
      }
    }
  }
  return document;
}

/** A response of the document, as far as its headers go. */
interface DocumentedResponse {
  headers?: Record<string, { description?: string; required?: boolean; schema: unknown }>;
}
