/**
 * The OpenAPI document (`/openapi.json`) and its page (`/docs`): a valid OpenAPI 3.1 document that
 * describes every `/v1` and `/admin/v1` route and nothing else, whose schemas all compile; the
 * documented routes answer what their handlers give, whatever their response schemas say; and the
 * check that holds every test gateway's answers to the document (helpers/openapi-conformance.ts)
 * catches each kind of mismatch.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOpenApi } from '../../../api/src/openapi/lazy-docs.ts';
import { DOCS_PATH, documentPath, OPENAPI_PATH } from '../../../api/src/openapi/openapi.ts';
import {
  openApi31DialectSchema,
  openApi31DocumentSchema,
  openApi31VocabularySchema,
} from '../../fixtures/openapi-3.1/index.ts';
import { TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { type Answer, conformanceChecker, pointerFragment } from '../../helpers/openapi-conformance.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

const addFormats = formatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
};
type Document = {
  openapi: string;
  info: { description: string; version: string; 'x-gateway-version': string };
  tags: Array<{ name: string }>;
  security: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object> };
};

let t: TestApp;
let document: Document;
/** `METHOD /path` of every route the app registered, in the document's path syntax. */
const registered = new Set<string>();

beforeAll(async () => {
  const collect = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    unsubscribe('fastify.initialization', collect);
    fastify.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) registered.add(`${method} ${documentPath(route.url)}`);
    });
  };
  subscribe('fastify.initialization', collect);
  t = await buildTestApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
  const res = await t.app.inject({ method: 'GET', url: OPENAPI_PATH });
  expect(res.statusCode).toBe(200);
  document = res.json<Document>();
});
afterAll(() => t.close());

/** The operations of the document as `METHOD /path`. */
function operations(): Array<[string, Operation]> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, Operation] => [
      `${method.toUpperCase()} ${path}`,
      operation,
    ]),
  );
}

/** Validators of the OpenAPI 3.1 specification's schemas (test/fixtures/openapi-3.1). */
function specificationValidators() {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  // The specification's own format of media-type keys, not one Ajv knows: not checked here.
  ajv.addFormat('media-range', true);
  // Ajv resolves `$dynamicRef` only to an anchor at a schema's root (ajv-validator/ajv#1745): the
  // document's structure is checked with its Schema Objects taken as objects, and each Schema
  // Object is checked against the dialect (whose anchors are at roots) on its own.
  const structure = JSON.parse(
    JSON.stringify(openApi31DocumentSchema).replaceAll(
      '{"$dynamicRef":"#meta"}',
      '{"$ref":"#/$defs/schema"}',
    ),
  ) as object;
  ajv.addSchema(openApi31VocabularySchema);
  return { ajv, structure: ajv.compile(structure), schemaObject: ajv.compile(openApi31DialectSchema) };
}

/** Every Schema Object of a document: components, parameters, bodies and headers. */
function schemaObjects(doc: Document): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = Object.entries(doc.components.schemas).map(([name, schema]) => [
    `components.schemas.${name}`,
    schema,
  ]);
  const visit = (where: string, value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    for (const [key, item] of Object.entries(value)) {
      if (key === 'schema') found.push([`${where}.schema`, item]);
      else visit(`${where}.${key}`, item);
    }
  };
  visit('paths', doc.paths);
  return found;
}

describe('the OpenAPI document', () => {
  it('is served without a key at /openapi.json, and at /docs/json for the page', async () => {
    const res = await t.app.inject({ method: 'GET', url: OPENAPI_PATH });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(document.openapi).toBe('3.1.0');
    const page = await t.app.inject({ method: 'GET', url: `${DOCS_PATH}/json` });
    expect(page.statusCode).toBe(200);
    expect(page.json()).toEqual(document);
  });

  it('is a valid OpenAPI 3.1 document, every Schema Object in the OpenAPI dialect', () => {
    const { structure, schemaObject } = specificationValidators();
    expect(structure(document), JSON.stringify(structure.errors?.slice(0, 5))).toBe(true);
    const objects = schemaObjects(document);
    expect(objects.length).toBeGreaterThan(100);
    const invalid = objects.filter(([, schema]) => !schemaObject(schema)).map(([where]) => where);
    expect(invalid).toEqual([]);

    // The validators do refuse what the specification refuses.
    const broken = structuredClone(document);
    const balance = broken.paths['/v1/balance']?.get?.responses['200'] as { description?: string };
    delete balance.description;
    expect(structure(broken)).toBe(false);
    expect(schemaObject({ type: 'objekt' })).toBe(false);
    expect(schemaObject({ discriminator: {} })).toBe(false);
  });

  it('describes every /v1 and /admin/v1 route, and only those', () => {
    const routes = [...registered].filter((route) => {
      const [method, path = ''] = route.split(' ');
      return method !== 'HEAD' && (path.startsWith('/v1/') || path.startsWith('/admin/v1/'));
    });
    expect(routes.length).toBeGreaterThan(20);
    const documented = operations().map(([operation]) => operation);
    expect([...documented].sort()).toEqual([...routes].sort());
    expect(documented.every((operation) => registered.has(operation))).toBe(true);
  });

  it('names, tags and secures every operation, and documents its success and its failures', () => {
    const tags = new Set(document.tags.map((tag) => tag.name));
    const ids = new Set<string>();
    expect(document.security).toEqual([{ ApiKey: [] }]);
    for (const [operation, spec] of operations()) {
      expect(spec.operationId, operation).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(spec.operationId ?? ''), `${operation}: operationId used twice`).toBe(false);
      ids.add(spec.operationId ?? '');
      expect(spec.summary, operation).toBeTruthy();
      expect(spec.tags?.length, operation).toBe(1);
      expect(tags.has(spec.tags?.[0] ?? ''), `${operation}: undeclared tag`).toBe(true);
      const statuses = Object.keys(spec.responses);
      expect(
        statuses.some((status) => status.startsWith('2')),
        operation,
      ).toBe(true);
      expect(statuses, operation).toEqual(expect.arrayContaining(['400', '500', '503']));
      const [, path = ''] = operation.split(' ');
      if (path.startsWith('/admin/')) {
        expect(spec.security, operation).toEqual([{ AdminToken: [] }]);
        expect(spec.tags?.[0], operation).toMatch(/^Operator: /);
      } else if (path.startsWith('/v1/models')) {
        expect(spec.security, operation).toEqual([]);
      } else {
        expect(spec.security, operation).toBeUndefined();
        expect(statuses, operation).toEqual(expect.arrayContaining(['401', '402', '403', '429']));
      }
    }
  });

  it('has schemas that all compile, every reference resolving to a component', () => {
    const ajv = addFormats(new Ajv2020({ strict: false }));
    ajv.addSchema(document, 'doc');
    let compiled = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          for (const mediaType of Object.keys(response.content ?? {})) {
            const pointer = ['paths', path, method, 'responses', status, 'content', mediaType, 'schema'];
            ajv.compile({ $ref: `doc${pointerFragment(pointer)}` });
            compiled += 1;
          }
        }
      }
    }
    for (const name of Object.keys(document.components.schemas))
      ajv.compile({ $ref: `doc#/components/schemas/${name}` });
    expect(compiled).toBeGreaterThan(200);
    expect(() => ajv.compile({ $ref: 'doc#/components/schemas/NoSuchComponent' })).toThrow();
  });

  it('carries the API version 1.0.0, and the release that serves it apart', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    expect(document.info.version).toBe('1.0.0');
    expect(document.info['x-gateway-version']).toBe(pkg.version);
  });

  it('leaves out the native APIs, the console API and health, and says where they are described', () => {
    const paths = Object.keys(document.paths);
    expect(paths.filter((path) => !path.startsWith('/v1/') && !path.startsWith('/admin/v1/'))).toEqual([]);
    for (const mention of ['/anthropic', '/gemini', '/openai', '/elevenlabs', '/console/api', '/healthz']) {
      expect(document.info.description).toContain(mention);
    }
    expect(document.info.description).toContain('docs/native.md');
    expect(document.info.description).toContain('docs/api.md');
  });
});

describe('the reference page', () => {
  it('is served without a key, with its assets from this origin only', async () => {
    const res = await t.app.inject({ method: 'GET', url: DOCS_PATH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    const asset = await t.app.inject({ method: 'GET', url: `${DOCS_PATH}/static/swagger-ui-bundle.js` });
    expect(asset.statusCode).toBe(200);
  });
});

describe('the document and the page, made on their first request', () => {
  let app: FastifyInstance;
  /** Fastify instances created since the app was ready (the docs app is one). */
  let created = 0;
  const count = () => {
    created += 1;
  };

  beforeAll(async () => {
    app = Fastify();
    await registerOpenApi(app);
    app.get(
      '/v1/probe',
      { schema: { summary: 'A probe', response: { 200: { type: 'object' } } } },
      async () => ({}),
    );
    app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'the app’s own 404' }));
    await app.ready();
    subscribe('fastify.initialization', count);
  });
  afterAll(async () => {
    unsubscribe('fastify.initialization', count);
    await app.close();
  });

  it('cost the app nothing until then: no second app, no shared schema in its own', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/probe' })).statusCode).toBe(200);
    expect(created).toBe(0);
    // The components would reach every route's compiled serializer (tens of MB in the api).
    expect(Object.keys(app.getSchemas())).toEqual([]);
    const res = await app.inject({ method: 'GET', url: OPENAPI_PATH });
    expect(res.statusCode).toBe(200);
    expect(res.json<Document>().paths['/v1/probe']?.get?.summary).toBe('A probe');
    expect((await app.inject({ method: 'GET', url: DOCS_PATH })).statusCode).toBe(200);
    expect(created).toBe(1);
  });

  it('are answered with their own status, headers and bytes, HEAD and conditional requests included', async () => {
    const document = await app.inject({ method: 'GET', url: OPENAPI_PATH });
    const head = await app.inject({ method: 'HEAD', url: OPENAPI_PATH });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(String(document.rawPayload.length));
    expect(head.headers['content-type']).toBe(document.headers['content-type']);
    const asset = await app.inject({ method: 'GET', url: `${DOCS_PATH}/static/swagger-ui.css` });
    expect(asset.headers['content-type']).toMatch(/^text\/css/);
    const again = await app.inject({
      method: 'GET',
      url: `${DOCS_PATH}/static/swagger-ui.css`,
      headers: { 'if-none-match': String(asset.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers['content-type']).toBeUndefined();
    const part = await app.inject({
      method: 'GET',
      url: `${DOCS_PATH}/static/swagger-ui.css`,
      headers: { range: 'bytes=0-9' },
    });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe(asset.body.slice(0, 10));
    const moved = await app.inject({ method: 'GET', url: `${DOCS_PATH}/static/index.html` });
    expect(moved.statusCode).toBe(302);
    expect(moved.headers.location).toBe(`${DOCS_PATH}/`);
  });

  it('answer a path they do not know with the app’s own 404, under the page’s CSP', async () => {
    const res = await app.inject({ method: 'GET', url: `${DOCS_PATH}/static/nothing.js` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'the app’s own 404' });
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  });
});

describe('a documented answer is sent as its handler gives it', () => {
  let app: FastifyInstance;
  const given = { c: 'not in the schema', b: 1.5, a: 'x' };
  const schema = {
    response: { 200: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } } },
  };

  beforeAll(async () => {
    app = Fastify();
    await registerOpenApi(app);
    app.get('/v1/probe', { schema }, async () => given);
    app.get('/probe', { schema }, async () => given);
    await app.ready();
  });
  afterAll(() => app.close());

  it('byte for byte on a documented route, where a schema-serialized route would not be', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/probe' })).body).toBe(JSON.stringify(given));
    // The same schema on an undocumented route serializes through it: order, truncation, dropped field.
    expect((await app.inject({ method: 'GET', url: '/probe' })).body).toBe('{"a":"x","b":1}');
  });
});

describe('the answer check of the test gateways', () => {
  const doc = {
    openapi: '3.1.0',
    paths: {
      '/v1/things/{id}': {
        get: {
          responses: {
            200: {
              description: 'a thing',
              headers: { 'X-Request-Id': { required: true, schema: { type: 'string' } } },
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['id'],
                    properties: { id: { type: 'string' } },
                  },
                },
                'video/mp4': { schema: { type: 'string' } },
              },
            },
            204: { description: 'nothing' },
          },
        },
      },
    },
  };
  const check = conformanceChecker(doc);
  const answer = (overrides: Partial<Answer>): Answer => ({
    method: 'GET',
    route: '/v1/things/:id',
    status: 200,
    headers: { 'x-request-id': 'req_1', 'content-type': 'application/json; charset=utf-8' },
    body: '{"id":"t1"}',
    ...overrides,
  });

  it('passes an answer the document describes', () => {
    expect(check(answer({}))).toEqual([]);
    expect(
      check(answer({ headers: { 'x-request-id': 'r', 'content-type': 'video/mp4' }, body: undefined })),
    ).toEqual([]);
    expect(check(answer({ status: 204, headers: {}, body: '' }))).toEqual([]);
    expect(check(answer({ route: '/console/api/things' }))).toEqual([]);
  });

  it('reports each kind of mismatch', () => {
    expect(check(answer({ status: 418 }))).toEqual(['GET /v1/things/{id} → 418: status not documented']);
    expect(check(answer({ headers: { 'content-type': 'application/json' } }))).toEqual([
      'GET /v1/things/{id} → 200: required header X-Request-Id missing',
    ]);
    expect(check(answer({ headers: { 'x-request-id': 'r', 'content-type': 'text/plain' } }))).toEqual([
      'GET /v1/things/{id} → 200: content type "text/plain" not documented',
    ]);
    expect(check(answer({ body: '{"id":"t1","extra":true}' }))[0]).toMatch(
      /must NOT have additional properties/,
    );
    expect(check(answer({ body: '{"id":7}' }))[0]).toMatch(/body\/id must be string/);
    expect(check(answer({ body: 'not json' }))).toEqual(['GET /v1/things/{id} → 200: the body is not JSON']);
    expect(check(answer({ status: 204, body: '{}' }))).toEqual([
      'GET /v1/things/{id} → 204: a body where none is documented',
    ]);
  });
});
