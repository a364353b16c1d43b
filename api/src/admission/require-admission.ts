import type { FastifyRequest } from 'fastify';
import type { AdmissionContext } from './admission-context.ts';

/** The admission of a request served by an authenticated route; its absence is a wiring bug. */
export function requireAdmission(request: FastifyRequest): AdmissionContext {
  if (request.admission === undefined)
    throw new Error(`route ${request.routeOptions.url} is not behind admission`);
  return request.admission;
}
