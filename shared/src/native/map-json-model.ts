/**
 * Model name mapping for native requests whose body is JSON: find the model the body names,
 * resolve it in the catalogue, and give each route its body, identical to the one sent except for
 * the model value (see json-fields.ts for why nothing else is re-serialised).
 */
import type { Catalogue, ModelRoute } from '../catalogue/catalogue.ts';
import type { ModelType } from '../catalogue/catalogue-schema.ts';
import { errors } from '../errors/app-error.ts';
import {
  type FoundString,
  findStrings,
  insertFirstMember,
  JsonFieldError,
  type JsonPath,
  replaceSpans,
} from './json-fields.ts';
import { type NativeModelMatch, resolveNativeModel } from './resolve-native-model.ts';

/** A native request mapped to its catalogue model, ready to be sent on any of its routes. */
export interface MappedRequest extends NativeModelMatch {
  /** The model name as the request gave it (or the provider's default when it gave none). */
  readonly requested: string;
  /** The body to send on `route`: the bytes as sent, with only the model value rewritten. */
  body(route: ModelRoute): Uint8Array;
}

/** Where a protocol carries its model name in a JSON body, and how. */
export interface JsonModelField {
  /** The provider whose routes serve the request. */
  readonly provider: string;
  /** Model types the endpoint serves. */
  readonly types: readonly ModelType[];
  /** The top-level key of the model name. */
  readonly key: string;
  /**
   * The model the provider uses when the body names none; absent: the field is required.
   * A route whose native id differs gets the field inserted as the body's first member.
   */
  readonly defaultModel?: string;
}

/** Maps a JSON body per `field`; invalid JSON, a duplicated or non-string model: 400; unknown model: 404. */
export function mapJsonModel(
  body: Uint8Array,
  catalogue: Pick<Catalogue, 'list'>,
  field: JsonModelField,
): MappedRequest {
  const found = findOrRefuse(body, [[field.key]]);
  const [sent] = found;
  const requested = sent?.value ?? field.defaultModel;
  const match = resolveNativeModel(catalogue, field.provider, requested, field.types);
  return {
    ...match,
    requested: requested as string,
    body: (route) => {
      if (sent !== undefined) return rewrite(body, found, JSON.stringify(route.native_id));
      if (route.native_id === field.defaultModel) return body;
      return insertFirstMember(body, field.key, JSON.stringify(route.native_id));
    },
  };
}

/** The string values at `paths`, or the client's 400 naming what is wrong with the body. */
export function findOrRefuse(body: Uint8Array, paths: readonly JsonPath[]): FoundString[] {
  try {
    return findStrings(body, paths);
  } catch (error) {
    if (error instanceof JsonFieldError) throw errors.invalidRequest(error.message);
    throw error;
  }
}

/** `body` with every found value replaced by `valueJson`. */
export function rewrite(body: Uint8Array, found: readonly FoundString[], valueJson: string): Uint8Array {
  return replaceSpans(
    body,
    found.map(({ start, end }) => ({ start, end, text: valueJson })),
  );
}
