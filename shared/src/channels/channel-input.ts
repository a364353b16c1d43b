import type { CatalogueModel } from '../catalogue/catalogue.ts';
import { AppError } from '../errors/app-error.ts';
import { PROVIDER_IDS } from '../providers/provider-ids.ts';

/** The body of `POST /admin/v1/channels` (JSON schema: channels.schema.ts). */
export interface ChannelCreateBody {
  readonly provider: string;
  readonly name: string;
  readonly api_key: string;
  readonly base_url?: string | null;
  readonly weight?: number;
  readonly priority?: number;
  readonly models?: readonly string[] | null;
  readonly enabled?: boolean;
}

/** The body of `PATCH /admin/v1/channels/{id}`: any field. */
export type ChannelPatchBody = Partial<ChannelCreateBody>;

/** What checking a channel's fields needs: the providers routes may name, and the catalogue. */
export interface ChannelVocabulary {
  /** The OpenAI-compatible upstreams this process declares. */
  readonly compatibleProviders: readonly string[];
  readonly models: () => readonly Pick<CatalogueModel, 'id' | 'routes'>[];
}

const invalid = (message: string, code = 'invalid_request_error') =>
  new AppError(400, 'invalid_request_error', code, message);

/** A provider a channel may be of: a built-in one (not the `demo` simulator) or a declared compatible one. */
export function checkProvider(provider: string, vocabulary: ChannelVocabulary): void {
  const known = PROVIDER_IDS.some((id) => id === provider && id !== 'demo');
  if (!known && !vocabulary.compatibleProviders.includes(provider)) {
    const all = [...PROVIDER_IDS.filter((id) => id !== 'demo'), ...vocabulary.compatibleProviders];
    throw invalid(
      `Unknown provider \`${provider}\` (provider): one of ${all.join(', ')}.`,
      'unknown_provider',
    );
  }
}

/** A `base_url` the gateway may call: an absolute http(s) URL, kept without a trailing slash. */
export function checkBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw invalid('`base_url` must be an absolute URL starting with http:// or https:// (base_url).');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid('`base_url` must start with http:// or https:// (base_url).');
  if (url.username !== '' || url.password !== '')
    throw invalid('`base_url` must not carry a user or password: the credential is `api_key` (base_url).');
  return baseUrl.replace(/\/+$/, '');
}

/** `models`: null (every model of the provider), or catalogue ids each with a route of the provider. */
export function checkModels(
  models: readonly string[] | null,
  provider: string,
  vocabulary: ChannelVocabulary,
): readonly string[] | null {
  if (models === null) return null;
  if (models.length === 0)
    throw invalid('`models` must name at least one model, or be null for all (models).');
  const served = new Set(
    vocabulary
      .models()
      .filter((model) => model.routes.some((route) => route.provider === provider))
      .map((model) => model.id),
  );
  for (const id of models) {
    if (!served.has(id))
      throw invalid(`\`models\` names \`${id}\`, which is not a model of provider \`${provider}\` (models).`);
  }
  return [...new Set(models)];
}

/** A credential's last four characters, the only part ever shown again. */
export function last4Of(apiKey: string): string {
  return apiKey.slice(-4);
}

/** A duplicate name: 400, as every other field's error. */
export function nameTaken(name: string): AppError {
  return invalid(`A channel named \`${name}\` already exists (name).`, 'channel_name_taken');
}
