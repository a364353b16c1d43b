/**
 * A trace collector on a real HTTP server, speaking OTLP/HTTP as OpenTelemetry documents it:
 * `POST /v1/traces` with an `ExportTraceServiceRequest` in its JSON encoding (`application/json`,
 * gzip accepted; IDs in hex, enums as numbers, 64-bit integers as strings or numbers), answered
 * `200 {}` (an `ExportTraceServiceResponse` without partial success). A protobuf body is refused
 * (415) and recorded as a problem, so a test cannot pass on spans it never decoded.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** OTLP's span kinds (`Span.SpanKind`). */
export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

/** A received span, flattened: its service, ids, name, kind and attributes as plain values. */
export interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** `Status.code`: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
}

export interface OtlpReceiver {
  /** The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Bodies that could not be decoded (none is expected). */
  readonly problems: string[];
  /** Resolves with the spans once `ready(spans)` holds; fails after `timeoutMs`. */
  waitFor(ready: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportTraceServiceRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        status?: { code?: number };
      }>;
    }>;
  }>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const problems: string[] = [];
  const server = createServer((request, response) => {
    void bodyOf(request).then(
      (body) => {
        const type = request.headers['content-type'] ?? '';
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        if (!type.startsWith('application/json')) {
          problems.push(`a body of type ${type}`);
          response.writeHead(415).end();
          return;
        }
        try {
          spans.push(...flatten(JSON.parse(body.toString('utf8')) as ExportTraceServiceRequest));
        } catch (err) {
          problems.push(String(err));
          response.writeHead(400).end();
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
      (err: unknown) => {
        problems.push(String(err));
        response.writeHead(400).end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    problems,
    async waitFor(ready, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!ready(spans)) {
        if (Date.now() > deadline)
          throw new Error(
            `the spans expected did not arrive within ${timeoutMs} ms; received:\n${describe(spans)}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return spans;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

function flatten(request: ExportTraceServiceRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    const service = String(resource['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        attributes: attributesOf(span.attributes),
        statusCode: span.status?.code ?? 0,
      })),
    );
  });
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) attributes[key] = value.stringValue;
    else if (value.boolValue !== undefined) attributes[key] = value.boolValue;
    else if (value.intValue !== undefined) attributes[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) attributes[key] = value.doubleValue;
  }
  return attributes;
}

function describe(spans: readonly ReceivedSpan[]): string {
  return spans
    .map((span) => `${span.service} ${span.name} (${span.spanId} ← ${span.parentSpanId})`)
    .join('\n');
}
