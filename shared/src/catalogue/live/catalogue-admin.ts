import { errors } from '../../errors/app-error.ts';
import type { CatalogueModel } from '../catalogue.ts';
import {
  accountSubject,
  type CatalogueSnapshot,
  DEFAULT_PRICE_MULTIPLIER,
  EXCHANGE_RATE_SUBJECT,
  MARKUP_SUBJECT,
} from './build-snapshot.ts';
import type {
  CatalogueChange,
  CatalogueOverridesRepository,
  ChangeActor,
  ChangePage,
  PriceOverride,
} from './catalogue-overrides.repository.ts';
import { sequenceOfChangeId } from './catalogue-overrides.repository.ts';
import type { LiveCatalogue } from './live-catalogue.ts';

/** The bounds the operator's values must keep (the API's schemas say the same). */
export const MARKUP_BOUNDS = { min: -90, max: 1000 } as const;
export const MULTIPLIER_BOUNDS = { min: 0.1, max: 10 } as const;
/** More decimals than µIRT cannot be charged exactly. */
const PRICE_DECIMALS = 6;

export interface ModelPatch {
  readonly enabled?: boolean;
  readonly price_override?: PriceOverride | null;
}

export interface CatalogueAdminDeps {
  readonly live: LiveCatalogue;
  readonly overrides: CatalogueOverridesRepository;
  readonly clock?: () => Date;
}

/**
 * The operator's changes to the live catalogue (docs/catalogue.md): each one checked, stored with
 * its history entry, then rebuilt here at once and announced to every other process.
 */
export interface CatalogueAdmin {
  /** The model with exactly this id, disabled ones included; 404 `model_not_found` otherwise. */
  model(id: string): CatalogueModel;
  updateModel(id: string, patch: ModelPatch, actor: ChangeActor): Promise<CatalogueModel>;
  setExchangeRate(irtPerUsd: number, actor: ChangeActor): Promise<void>;
  setMarkup(markupPercent: number, actor: ChangeActor): Promise<void>;
  setPriceMultiplier(accountId: string, multiplier: number, actor: ChangeActor): Promise<void>;
  listChanges(query: { readonly limit: number; readonly cursor?: string | undefined }): Promise<ChangePage>;
  snapshot(): CatalogueSnapshot;
}

export function createCatalogueAdmin(deps: CatalogueAdminDeps): CatalogueAdmin {
  const clock = deps.clock ?? (() => new Date());
  const snapshot = () => deps.live.current();
  const model = (id: string) => {
    const found = snapshot().get(id);
    if (found === undefined) throw errors.modelNotFound(id);
    return found;
  };
  async function write(
    subject: string,
    field: string,
    value: boolean | number | PriceOverride | null,
    before: unknown,
    actor: ChangeActor,
  ): Promise<CatalogueChange> {
    return deps.overrides.write({ subject, field, value, before, actor, now: clock() });
  }
  return {
    model,
    snapshot,

    async updateModel(id, patch, actor) {
      const current = model(id);
      const state = snapshot().operatorState(id);
      if (patch.price_override != null) checkPriceOverride(current, patch.price_override);
      let changed = false;
      if (patch.enabled !== undefined) {
        const before = state.enabledOverride ?? fileEnabled(current, state);
        if (before !== patch.enabled) {
          await write(id, 'enabled', patch.enabled, before, actor);
          changed = true;
        }
      }
      if (patch.price_override !== undefined) {
        const price = patch.price_override;
        const stored =
          price === null
            ? null
            : { input: price.input, output: price.output ?? null, cached_input: price.cached_input ?? null };
        await write(id, 'price_override', stored, state.priceOverride, actor);
        changed = true;
      }
      if (changed) await deps.live.announceChange();
      return model(id);
    },

    async setExchangeRate(irtPerUsd, actor) {
      if (!(Number.isFinite(irtPerUsd) && irtPerUsd > 0))
        throw errors.invalidRequest('irt_per_usd must be a number above 0.');
      await write(EXCHANGE_RATE_SUBJECT, 'irt_per_usd', irtPerUsd, snapshot().exchangeRate.irtPerUsd, actor);
      await deps.live.announceChange();
    },

    async setMarkup(markupPercent, actor) {
      if (!(markupPercent >= MARKUP_BOUNDS.min && markupPercent <= MARKUP_BOUNDS.max))
        throw errors.invalidRequest(
          `markup_percent must be between ${MARKUP_BOUNDS.min} and ${MARKUP_BOUNDS.max}.`,
        );
      await write(MARKUP_SUBJECT, 'markup_percent', markupPercent, snapshot().markupPercent, actor);
      await deps.live.announceChange();
    },

    async setPriceMultiplier(accountId, multiplier, actor) {
      if (!(multiplier >= MULTIPLIER_BOUNDS.min && multiplier <= MULTIPLIER_BOUNDS.max))
        throw errors.invalidRequest(
          `price_multiplier must be between ${MULTIPLIER_BOUNDS.min} and ${MULTIPLIER_BOUNDS.max}.`,
        );
      const before = snapshot().priceMultiplierOf(accountId);
      await write(accountSubject(accountId), 'price_multiplier', multiplier, before, actor);
      await deps.live.announceChange();
    },

    async listChanges(query) {
      if (query.cursor !== undefined && sequenceOfChangeId(query.cursor) === null)
        throw errors.invalidRequest('cursor is not a cursor this list gave.');
      return deps.overrides.listChanges(
        query.cursor === undefined ? { limit: query.limit } : { limit: query.limit, cursor: query.cursor },
      );
    },
  };
}

/** The model's own setting: served, or unavailable for want of a provider, counts as enabled. */
function fileEnabled(model: CatalogueModel, state: { unavailable: boolean }): boolean {
  return model.enabled || state.unavailable;
}

/** Whether the account's multiplier differs from the default (for views). */
export function hasPricePlan(snapshot: CatalogueSnapshot, accountId: string): boolean {
  return snapshot.priceMultiplierOf(accountId) !== DEFAULT_PRICE_MULTIPLIER;
}

/** A price the gateway can charge exactly: non-negative, at most 6 decimals, output where the model bills output. */
function checkPriceOverride(model: CatalogueModel, price: PriceOverride): void {
  const fields = ['input', 'output', 'cached_input'] as const;
  for (const field of fields) {
    const value = price[field];
    if (value == null) continue;
    if (!Number.isFinite(value) || value < 0)
      throw errors.invalidRequest(`price_override.${field} must be a number of at least 0.`);
    if (!atMostDecimals(value, PRICE_DECIMALS))
      throw errors.invalidRequest(`price_override.${field} has more than ${PRICE_DECIMALS} decimals.`);
  }
  if (model.list_price_usd.output !== null && price.output == null)
    throw errors.invalidRequest(`price_override.output is required: ${model.id} is billed for output.`);
}

function atMostDecimals(value: number, decimals: number): boolean {
  const text = String(value);
  if (/e-/i.test(text)) return false;
  const fraction = text.split('.')[1] ?? '';
  return fraction.length <= decimals;
}
