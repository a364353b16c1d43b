import { errors } from '../errors/app-error.ts';
import type { Catalogue, CatalogueModel } from './catalogue.ts';
import type { ModelType } from './catalogue-schema.ts';

/**
 * The model an endpoint request names (id, alias or bare upstream id), which must exist, be
 * enabled and have the endpoint's type; otherwise 404 `model_not_found` (spec, Errors).
 */
export function resolveModelFor(
  catalogue: Pick<Catalogue, 'resolve'>,
  name: string | undefined,
  type: ModelType,
): CatalogueModel {
  if (name === undefined || name.trim() === '') throw errors.modelRequired();
  const model = catalogue.resolve(name);
  if (model === undefined || !model.enabled || model.type !== type) throw errors.modelNotFound(name);
  return model;
}
