import { type Catalogue, type PublicModel, toPublicModel } from '../catalogue.ts';

export interface PublicModelList {
  readonly object: 'list';
  readonly data: PublicModel[];
  readonly byId: ReadonlyMap<string, PublicModel>;
}

/**
 * The public model list of a catalogue (enabled models only), built once per catalogue: a live
 * catalogue gives a new snapshot on every change, so a list is never served from an older one.
 */
export function publicModelList(catalogue: Catalogue): PublicModelList {
  const snapshot = 'current' in catalogue ? (catalogue as { current(): Catalogue }).current() : catalogue;
  let list = lists.get(snapshot);
  if (list === undefined) {
    const data = snapshot
      .list()
      .filter((model) => model.enabled)
      .map(toPublicModel);
    list = { object: 'list', data, byId: new Map(data.map((model) => [model.id, model])) };
    lists.set(snapshot, list);
  }
  return list;
}

const lists = new WeakMap<Catalogue, PublicModelList>();
