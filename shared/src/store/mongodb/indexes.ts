import type { IndexDescription } from 'mongodb';

/**
 * Indexes are declared beside the repository that queries them (each with a comment naming that
 * query) and registered here when the repository module loads; `ensureIndexes` creates them at start.
 */
export interface CollectionIndexes {
  readonly collection: string;
  readonly indexes: readonly IndexDescription[];
}

const registry = new Map<string, CollectionIndexes>();

/** Registers a collection's indexes; a second registration of one collection is a programming error. */
export function declareIndexes(collection: string, indexes: readonly IndexDescription[]): void {
  if (registry.has(collection)) throw new Error(`indexes of collection ${collection} are declared twice`);
  registry.set(collection, { collection, indexes });
}

export function declaredIndexes(): readonly CollectionIndexes[] {
  return [...registry.values()];
}
