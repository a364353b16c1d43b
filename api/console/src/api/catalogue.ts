/** The operator's "Models and prices" endpoints (docs/catalogue.md). */
import { consoleApi } from './client.ts';

export interface CataloguePrice {
  readonly input: number;
  readonly output: number | null;
  readonly cached_input: number | null;
}

export interface OperatorModel {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly enabled: boolean;
  readonly served: boolean;
  readonly list_price_usd: CataloguePrice & { readonly unit: string };
  readonly price_override: CataloguePrice | null;
  readonly pricing: CataloguePrice & { readonly unit: string };
}

export interface CatalogueView {
  readonly data: readonly OperatorModel[];
  readonly irt_per_usd: number;
  readonly as_of: string;
  readonly markup_percent: number;
  readonly unavailable_defaults: readonly { readonly variable: string; readonly model: string }[];
}

export interface CatalogueChange {
  readonly id: string;
  readonly created: number;
  readonly actor: 'operator' | 'admin-api';
  readonly subject: string;
  readonly field: string;
  readonly before: unknown;
  readonly after: unknown;
}

export const getCatalogue = (signal?: AbortSignal) =>
  consoleApi<CatalogueView>('GET', '/catalogue', { signal });

export const updateModel = (
  id: string,
  patch: { enabled?: boolean; price_override?: CataloguePrice | null },
) =>
  consoleApi<OperatorModel>('PATCH', `/catalogue/models/${id.split('/').map(encodeURIComponent).join('/')}`, {
    body: patch,
  });

export const setExchangeRate = (irtPerUsd: number) =>
  consoleApi<CatalogueView>('PUT', '/catalogue/exchange-rate', { body: { irt_per_usd: irtPerUsd } });

export const setMarkup = (markupPercent: number) =>
  consoleApi<CatalogueView>('PUT', '/catalogue/markup', { body: { markup_percent: markupPercent } });

export const catalogueChanges = (cursor: string | undefined, signal?: AbortSignal) =>
  consoleApi<{ data: readonly CatalogueChange[]; next_cursor: string | null }>(
    'GET',
    `/catalogue/changes?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    { signal },
  );

export const getPricePlan = (accountId: string, signal?: AbortSignal) =>
  consoleApi<{ price_multiplier: number }>('GET', `/accounts/${encodeURIComponent(accountId)}/price-plan`, {
    signal,
  });

export const setPricePlan = (accountId: string, multiplier: number) =>
  consoleApi<{ price_multiplier: number }>('PUT', `/accounts/${encodeURIComponent(accountId)}/price-plan`, {
    body: { price_multiplier: multiplier },
  });
