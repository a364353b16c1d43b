import type { Catalogue, CatalogueModel, ModelRoute } from '../catalogue/catalogue.ts';
import type { ModelType } from '../catalogue/catalogue-schema.ts';
import { errors } from '../errors/app-error.ts';

/** A catalogue model named by a native request, and its routes through that request's provider. */
export interface NativeModelMatch {
  readonly model: CatalogueModel;
  /** The model's routes of the provider, in catalogue (fallback) order; never empty. */
  readonly routes: readonly ModelRoute[];
}

/** How a name may match a model, strongest first; a name two models share at one level is ambiguous. */
const MATCHERS: readonly ((model: CatalogueModel, name: string, provider: string) => boolean)[] = [
  (model, name) => model.id === name,
  (model, name) => model.aliases.includes(name),
  (model, name) => model.native_id === name,
  (model, name, provider) => model.routes.some((r) => r.provider === provider && r.native_id === name),
];

/**
 * The model a native request names (`provider/name` id, alias, the model's native id, or the
 * native id of one of its routes through `provider`), among the enabled models of `types` that
 * have at least one route through `provider`: a native API only ever calls its own provider.
 * The one exception is the offline simulator: a model served by `demo` (the demo models, and a
 * model of `provider` that `SIMULATE_PROVIDERS` turned over to the simulator) is found too, and
 * its demo routes are returned (the native simulator answers them in the provider's format).
 * Unknown, ambiguous, disabled or of another type: 404 `model_not_found`, as on `/v1`.
 */
export function resolveNativeModel(
  catalogue: Pick<Catalogue, 'list'>,
  provider: string,
  name: string | undefined,
  types: readonly ModelType[],
): NativeModelMatch {
  if (name === undefined || name.trim() === '') throw errors.modelRequired();
  const candidates = catalogue.list().flatMap((model) => {
    if (!model.enabled || !types.includes(model.type)) return [];
    const routes = nativeRoutesOf(model, provider);
    return routes.length === 0 ? [] : [{ model, routes }];
  });
  for (const matches of MATCHERS) {
    const found = candidates.filter(({ model }) => matches(model, name, provider));
    if (found.length > 1) break;
    const [match] = found;
    if (match !== undefined) return match;
  }
  throw errors.modelNotFound(name);
}

/**
 * The routes a native API of `provider` may call for `model`: its routes through `provider`, else
 * its `demo` routes when the model is a demo model or one of `provider`'s that is simulated.
 */
function nativeRoutesOf(model: CatalogueModel, provider: string): readonly ModelRoute[] {
  const own = model.routes.filter((route) => route.provider === provider);
  if (own.length > 0) return own;
  const owner = model.id.slice(0, model.id.indexOf('/'));
  if (owner !== 'demo' && owner !== provider) return [];
  return model.routes.filter((route) => route.provider === 'demo');
}
