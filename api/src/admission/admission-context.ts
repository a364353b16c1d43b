import type { ResolvedKey } from '../../../shared/src/accounts/key-cache.ts';

/** What admission established about a request, for the handler that serves it. */
export interface AdmissionContext {
  readonly key: ResolvedKey;
  /** Id of the cost hold (the request id); settle or release it when the request ends. */
  readonly holdId: string;
  readonly estimateMicros: bigint;
  readonly rateLimit: { readonly limit: number; readonly remaining: number };
  /** Set once the handler settled the hold; an unsettled hold is released when the response ends. */
  settled: boolean;
}

/** Per-route admission settings (Fastify route `config.admission`). */
export interface RouteAdmission {
  /** The model a request asks for (check 7), when the route takes one. Runs before validation: be defensive. */
  readonly model?: (request: { body: unknown; query: unknown }) => string | undefined;
  /** The cost to hold while the request runs, in µIRT (0 for free endpoints). Runs before validation. */
  readonly estimateMicros?: (request: { body: unknown; query: unknown }) => bigint;
  /** The hold's id when it is not the request id (a media job's id: the job settles it). */
  readonly holdId?: (requestId: string) => string;
  /** How long the hold lives if nobody settles or releases it (a video render outlives requests). */
  readonly holdTtlMs?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    admission?: AdmissionContext;
  }
  interface FastifyContextConfig {
    admission?: RouteAdmission;
  }
}

/** The `model` field of a parsed (not yet validated) JSON body, when it is a string. */
export function bodyModelName({ body }: { body: unknown }): string | undefined {
  const model = (body as { model?: unknown } | null)?.model;
  return typeof model === 'string' ? model : undefined;
}
