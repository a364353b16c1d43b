import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * `preValidation` of the routes whose `model` is required (chat, embeddings, videos): a body that
 * sends `"model": null` has no model, so it answers 400 `model_required` like one without the
 * field, not a type error about it. Images and audio, whose model has a default, validate it as given.
 */
export function dropNullModel(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const body = request.body as Record<string, unknown> | null | undefined;
  if (typeof body === 'object' && body !== null && body.model === null) delete body.model;
  done();
}
