/**
 * The operator's changes to the catalogue, stored on top of the catalogue file (docs/catalogue.md,
 * "Live changes"). Each stored value is one field of one subject, exactly as the change history
 * names it; what a value means is decided by the snapshot built from them (build-snapshot.ts).
 */

/** Who made a change: the console's operator pages, or a caller of `/admin/v1`. */
export type ChangeActor = 'operator' | 'admin-api';

/** A price set by the operator, in IRT per the model's unit; it replaces the list price. */
export interface PriceOverride {
  readonly input: number;
  readonly output: number | null;
  readonly cached_input: number | null;
}

/**
 * What may be stored, by subject and field:
 * - a model id: `enabled` (boolean) or `price_override` (PriceOverride or null: back to the list price);
 * - `exchange_rate`: `irt_per_usd` (number > 0);
 * - `markup`: `markup_percent` (number, −90 to 1000);
 * - `account:<id>`: `price_multiplier` (number, 0.1 to 10).
 */
export type OverrideValue = boolean | number | PriceOverride | null;

export interface StoredOverride {
  readonly subject: string;
  readonly field: string;
  readonly value: OverrideValue;
  readonly updatedAt: Date;
}

/** Every stored override, with the store's version when they were read. */
export interface CatalogueOverrides {
  /** The store-wide version the overrides were read at (read before them: never newer than they are). */
  readonly version: number;
  readonly entries: readonly StoredOverride[];
}

/** One entry of the change history. `created` is in Unix seconds. */
export interface CatalogueChange {
  readonly id: string;
  readonly created: number;
  readonly actor: ChangeActor;
  readonly subject: string;
  readonly field: string;
  readonly before: unknown;
  readonly after: unknown;
}

export interface OverrideWrite {
  readonly subject: string;
  readonly field: string;
  readonly value: OverrideValue;
  readonly actor: ChangeActor;
  /** The effective value before the change, as the history shows it. */
  readonly before: unknown;
  readonly now: Date;
}

export interface ChangePage {
  readonly changes: CatalogueChange[];
  /** Where the next (older) page starts; null on the last page. */
  readonly nextCursor: string | null;
}

/**
 * The catalogue overrides store contract (SQLite and MongoDB implement it). The version is
 * store-wide and grows with every write, after the write is visible: a process that reads the
 * version, then the overrides, and later sees a greater version has a change to load.
 */
export interface CatalogueOverridesRepository {
  /** The store-wide version: 0 before the first change. */
  version(): Promise<number>;
  /** The version, then every override. */
  load(): Promise<CatalogueOverrides>;
  /** Stores the value, records the change in the history and bumps the version; returns the entry. */
  write(change: OverrideWrite): Promise<CatalogueChange>;
  /** The history, newest first, a page at a time (`cursor`: the previous page's `nextCursor`). */
  listChanges(query: { readonly limit: number; readonly cursor?: string }): Promise<ChangePage>;
}

/** The id of the history entry with this sequence number (the version its change made). */
export function changeIdOf(sequence: number): string {
  return `chg_${sequence.toString().padStart(12, '0')}`;
}

/** The sequence number of a history id; null for a string that is not one. */
export function sequenceOfChangeId(id: string): number | null {
  const match = /^chg_(\d{12})$/.exec(id);
  return match === null ? null : Number(match[1]);
}
