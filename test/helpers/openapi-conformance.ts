/**
 * Holds a test gateway to its own OpenAPI document (`/openapi.json`): every answer of a documented
 * route is checked as it goes out — its status is documented for the operation, its content type is
 * one the document lists, a JSON body validates against the schema of that status (Ajv, JSON Schema
 * 2020-12, as OpenAPI 3.1 says), and every header the document marks required is there. Streams and
 * binary bodies are checked by media type only. `assertConforming` fails with every violation.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { documentPath } from '../../api/src/openapi/openapi.ts';

const addFormats = formatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;
const DOCUMENT_ID = 'openapi.json';

interface Response {
  readonly headers?: Record<string, { required?: boolean }>;
  readonly content?: Record<string, unknown>;
}

type Document = { paths: Record<string, Record<string, { responses: Record<string, Response> }>> };

/** One answer as it went out. */
export interface Answer {
  readonly method: string;
  /** The route's URL as Fastify declares it (`/v1/videos/:id`). */
  readonly route: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, unknown>>;
  /** The body's text; `undefined` for a stream (not inspected), `''` for none. */
  readonly body: string | undefined;
}

/** The URI fragment of a JSON pointer to `parts` (`#/paths/~1v1~1models/get`). */
export function pointerFragment(parts: readonly string[]): string {
  return `#/${parts.map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
}

/** Checks answers against one document; the function answers the violations of one answer. */
export function conformanceChecker(document: object): (answer: Answer) => string[] {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema(document, DOCUMENT_ID);
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string[]) => {
    const ref = `${DOCUMENT_ID}${pointerFragment(pointer)}`;
    let validate = validators.get(ref);
    if (validate === undefined) {
      validate = ajv.compile({ $ref: ref });
      validators.set(ref, validate);
    }
    return validate;
  };
  const paths = (document as Document).paths;

  return (answer) => {
    const method = answer.method.toLowerCase();
    const path = documentPath(answer.route);
    const operation = paths[path]?.[method];
    if (operation === undefined) return [];
    const where = `${answer.method} ${path} → ${answer.status}`;
    const statusKey = [String(answer.status), `${String(answer.status)[0]}XX`, 'default'].find(
      (key) => operation.responses[key] !== undefined,
    );
    if (statusKey === undefined) return [`${where}: status not documented`];
    const response = operation.responses[statusKey] as Response;
    const problems: string[] = [];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      if (header.required === true && answer.headers[name.toLowerCase()] === undefined)
        problems.push(`${where}: required header ${name} missing`);
    }
    const mediaType = String(answer.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase();
    if (response.content === undefined) {
      if (answer.body !== '') problems.push(`${where}: a body where none is documented`);
      return problems;
    }
    if (mediaType === undefined || response.content[mediaType] === undefined) {
      problems.push(`${where}: content type "${mediaType}" not documented`);
      return problems;
    }
    if (mediaType !== 'application/json' || answer.body === undefined) return problems;
    const validate = validatorAt([
      'paths',
      path,
      method,
      'responses',
      statusKey,
      'content',
      mediaType,
      'schema',
    ]);
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return [...problems, `${where}: the body is not JSON`];
    }
    if (!validate(body)) {
      const errors = ajv.errorsText(validate.errors, { dataVar: 'body', separator: '; ' });
      problems.push(`${where}: ${errors} in ${answer.body.slice(0, 400)}`);
    }
    return problems;
  };
}

/** The text of a payload Fastify sends, or `undefined` for a stream. */
function bodyText(payload: unknown): string | undefined {
  if (payload === null || payload === undefined) return '';
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return undefined;
}

/** A gateway under watch: its answers' violations so far, and how many answers were checked. */
export interface ConformanceWatch {
  readonly violations: readonly string[];
  readonly checked: () => number;
  /** Throws, listing them, when an answer did not match the document. */
  assertConforming(): void;
}

/**
 * Runs `build` (which must create its Fastify instance before its first `await`, as `buildApp`
 * does) and installs the check on that instance before any plugin: answers of every route are seen.
 */
export async function buildWatched<App extends FastifyInstance>(
  build: () => Promise<App>,
): Promise<{ app: App; watch: ConformanceWatch }> {
  const violations: string[] = [];
  let checked = 0;
  let created: FastifyInstance | undefined;
  /** Made from the app's document once the app is built: no answer comes before. */
  let check: ((answer: Answer) => string[]) | undefined;
  const install = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    if (created !== undefined) return;
    created = fastify;
    const payloads = new WeakMap<FastifyRequest, string | undefined>();
    fastify.addHook('onSend', (request, _reply, payload, done) => {
      payloads.set(request, bodyText(payload));
      done(null, payload);
    });
    fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
      const route = request.routeOptions.url;
      if (route !== undefined && request.method !== 'HEAD' && payloads.has(request)) {
        if (check === undefined) throw new Error('an answer before the app was built');
        checked += 1;
        violations.push(
          ...check({
            method: request.method,
            route,
            status: reply.statusCode,
            headers: reply.getHeaders(),
            body: payloads.get(request),
          }),
        );
      }
      done();
    });
  };
  subscribe('fastify.initialization', install);
  let building: Promise<App>;
  try {
    building = build();
  } finally {
    unsubscribe('fastify.initialization', install);
  }
  const app = await building;
  if (created !== app) throw new Error('the OpenAPI check was not installed on the app that was built');
  check = conformanceChecker(await app.openApiDocument());
  return {
    app,
    watch: {
      violations,
      checked: () => checked,
      assertConforming() {
        if (violations.length === 0) return;
        throw new Error(
          `${violations.length} answers do not match the OpenAPI document:\n${[...new Set(violations)].join('\n')}`,
        );
      },
    },
  };
}
