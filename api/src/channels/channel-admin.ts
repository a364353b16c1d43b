import { randomBytes } from 'node:crypto';
import type { Billing } from '../../../shared/src/billing/billing.ts';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import type { ChannelChanges, LiveChannel, StoredChannel } from '../../../shared/src/channels/channel.ts';
import {
  type ChannelCreateBody,
  type ChannelPatchBody,
  type ChannelVocabulary,
  checkBaseUrl,
  checkModels,
  checkProvider,
  last4Of,
  nameTaken,
} from '../../../shared/src/channels/channel-input.ts';
import {
  ChannelSecretKeyMissing,
  type ChannelSecrets,
} from '../../../shared/src/channels/channel-secrets.ts';
import {
  ChannelNameTaken,
  type ChannelsRepository,
} from '../../../shared/src/channels/channels.repository.ts';
import type { ProcessChannels } from '../../../shared/src/channels/process-channels.ts';
import { AppError } from '../../../shared/src/errors/app-error.ts';
import type { MediaJobsRepository } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import { registerSecrets } from '../../../shared/src/upstream/secret-scrubber.ts';
import type { ChannelTestResult } from './test-channel.ts';

/** What the operator's channel endpoints need. */
export interface ChannelAdminDeps {
  readonly repository: ChannelsRepository;
  readonly secrets: ChannelSecrets;
  readonly control: Pick<
    ProcessChannels,
    'state' | 'figures' | 'announceChange' | 'resetHealth' | 'registry'
  >;
  readonly vocabulary: ChannelVocabulary;
  readonly defaultBaseUrl: (provider: string) => string | undefined;
  readonly jobs: Pick<MediaJobsRepository, 'listUnfinishedOnChannel' | 'markFailed'>;
  readonly billing: Pick<Billing, 'release'>;
  readonly test: (channel: LiveChannel, models: readonly CatalogueModel[]) => Promise<ChannelTestResult>;
  /** When this process started: the time environment channels show as made. */
  readonly startedAt: Date;
  readonly now: () => Date;
}

/** A channel as the operator API answers it (never its credential). */
export interface ChannelView {
  id: string;
  object: 'channel';
  provider: string;
  name: string;
  base_url: string | null;
  key_last4: string;
  weight: number;
  priority: number;
  models: string[] | null;
  enabled: boolean;
  status: string;
  status_reason: string | null;
  cooldown_until: string | null;
  source: 'api' | 'environment';
  created_at: string;
  updated_at: string;
  requests: number;
  failures: number;
  p50_latency_ms: number | null;
}

const channelNotFound = (id: string) =>
  new AppError(404, 'invalid_request_error', 'channel_not_found', `No channel with id \`${id}\`.`);
const readOnly = (id: string) =>
  new AppError(
    409,
    'invalid_request_error',
    'channel_read_only',
    `Channel \`${id}\` comes from a <PROVIDER>_API_KEY variable: change the environment to change it.`,
  );

/** A render in flight on a channel blocks its deletion unless forced. */
const hasRenders = (id: string, count: number) =>
  new AppError(
    409,
    'invalid_request_error',
    'channel_has_renders',
    `Channel \`${id}\` has ${count} video render(s) in flight; DELETE with ?force=true fails them uncharged.`,
  );

/** The channel endpoints' operations: every answer a view, every write announced to every process. */
export class ChannelAdmin {
  readonly #deps: ChannelAdminDeps;

  constructor(deps: ChannelAdminDeps) {
    this.#deps = deps;
  }

  async create(body: ChannelCreateBody): Promise<ChannelView> {
    const { vocabulary, secrets, repository } = this.#deps;
    checkProvider(body.provider, vocabulary);
    const baseUrl = body.base_url == null ? null : checkBaseUrl(body.base_url);
    const models = checkModels(body.models ?? null, body.provider, vocabulary);
    const secret = this.#seal(body.api_key);
    const now = this.#deps.now();
    const stored = await this.#named(body.name, () =>
      repository.insert(
        {
          id: `ch_${randomBytes(12).toString('base64url')}`,
          provider: body.provider,
          name: body.name,
          baseUrl,
          secret,
          keyLast4: last4Of(body.api_key),
          weight: body.weight ?? 1,
          priority: body.priority ?? 0,
          models,
          enabled: body.enabled ?? true,
        },
        now,
      ),
    );
    await this.#deps.control.announceChange();
    return this.#view(stored);
  }

  async list(): Promise<ChannelView[]> {
    const stored = await this.#deps.repository.list();
    return [
      ...stored.map((channel) => this.#view(channel)),
      ...this.#environment().map((c) => this.#liveView(c)),
    ];
  }

  async get(id: string): Promise<ChannelView> {
    const stored = await this.#deps.repository.findById(id);
    if (stored !== null) return this.#view(stored);
    const live = this.#environment().find((channel) => channel.id === id);
    if (live === undefined) throw channelNotFound(id);
    return this.#liveView(live);
  }

  /** Any field; `api_key` replaces the credential; an edit makes an auto-disabled channel healthy. */
  async update(id: string, body: ChannelPatchBody): Promise<ChannelView> {
    const { repository, vocabulary } = this.#deps;
    const current = await this.#stored(id);
    const provider = body.provider ?? current.provider;
    if (body.provider !== undefined) checkProvider(body.provider, vocabulary);
    const changes: { -readonly [K in keyof ChannelChanges]: ChannelChanges[K] } = {
      autoDisabledReason: null,
    };
    if (body.provider !== undefined) changes.provider = body.provider;
    if (body.name !== undefined) changes.name = body.name;
    if (body.base_url !== undefined)
      changes.baseUrl = body.base_url === null ? null : checkBaseUrl(body.base_url);
    if (body.weight !== undefined) changes.weight = body.weight;
    if (body.priority !== undefined) changes.priority = body.priority;
    if (body.enabled !== undefined) changes.enabled = body.enabled;
    if (body.models !== undefined || body.provider !== undefined)
      changes.models = checkModels(
        body.models !== undefined ? body.models : current.models,
        provider,
        vocabulary,
      );
    if (body.api_key !== undefined) {
      changes.secret = this.#seal(body.api_key);
      changes.keyLast4 = last4Of(body.api_key);
    }
    const updated = await this.#named(body.name, () => repository.update(id, changes, this.#deps.now()));
    if (updated === null) throw channelNotFound(id);
    await this.#deps.control.resetHealth(id);
    return this.#view(updated);
  }

  /** Deletes a channel; with renders in flight only when forced, which fails them uncharged. */
  async remove(id: string, force: boolean): Promise<void> {
    await this.#stored(id);
    const { jobs, billing } = this.#deps;
    const renders = await jobs.listUnfinishedOnChannel(id);
    if (renders.length > 0 && !force) throw hasRenders(id, renders.length);
    for (const job of renders) {
      const error = {
        message: 'The channel that accepted this render was deleted; nothing is charged.',
        status: 502,
        type: 'upstream_error',
        code: 'render_failed',
      };
      if ((await jobs.markFailed(job.id, error, this.#deps.now())) !== null)
        await billing.release({ requestId: job.id, accountId: job.accountId, keyId: job.keyId });
    }
    if (!(await this.#deps.repository.delete(id))) throw channelNotFound(id);
    await this.#deps.control.announceChange();
  }

  /** One small real request; a pass makes an auto-disabled channel healthy, a refusal disables it. */
  async test(
    id: string,
    models: readonly CatalogueModel[],
  ): Promise<Omit<ChannelTestResult, 'credentialRefused'>> {
    await this.get(id); // 404 for an unknown one
    const { registry } = this.#deps.control;
    await registry.reload();
    const live = registry.snapshot.byId.get(id);
    if (live === undefined) throw channelNotFound(id);
    const { credentialRefused, ...result } = await this.#deps.test(live, models);
    if (result.ok && live.autoDisabledReason !== null) {
      if (live.source === 'api')
        await this.#deps.repository.update(id, { autoDisabledReason: null }, this.#deps.now());
      await this.#deps.control.resetHealth(id);
    } else if (result.ok) {
      await this.#deps.control.resetHealth(id);
    } else if (credentialRefused) {
      await registry.autoDisable(live, `the provider refused the credential: ${result.error ?? 'refused'}`);
    }
    return result;
  }

  #environment(): LiveChannel[] {
    return this.#deps.control.registry.snapshot.all.filter((channel) => channel.source === 'environment');
  }

  async #stored(id: string): Promise<StoredChannel> {
    const stored = await this.#deps.repository.findById(id);
    if (stored !== null) return stored;
    if (this.#environment().some((channel) => channel.id === id)) throw readOnly(id);
    throw channelNotFound(id);
  }

  #seal(apiKey: string) {
    // Scrubbed from every log line and upstream text from now on, before its first use.
    registerSecrets([apiKey]);
    try {
      return this.#deps.secrets.seal(apiKey);
    } catch (err) {
      if (err instanceof ChannelSecretKeyMissing)
        throw new AppError(400, 'invalid_request_error', 'channel_secret_key_missing', err.message);
      throw err;
    }
  }

  async #named<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof ChannelNameTaken) throw nameTaken(name ?? err.channelName);
      throw err;
    }
  }

  #view(channel: StoredChannel): ChannelView {
    return this.#render(channel, {
      baseUrl: channel.baseUrl ?? this.#deps.defaultBaseUrl(channel.provider) ?? null,
      models: channel.models === null ? null : [...channel.models],
      source: 'api',
      createdAt: channel.createdAt,
      updatedAt: channel.updatedAt,
    });
  }

  #liveView(channel: LiveChannel): ChannelView {
    return this.#render(channel, {
      baseUrl: channel.baseUrl,
      models: channel.models === null ? null : [...channel.models],
      source: channel.source,
      createdAt: this.#deps.startedAt,
      updatedAt: this.#deps.startedAt,
    });
  }

  #render(
    channel: Pick<
      StoredChannel,
      'id' | 'provider' | 'name' | 'keyLast4' | 'weight' | 'priority' | 'enabled' | 'autoDisabledReason'
    >,
    extra: {
      baseUrl: string | null;
      models: string[] | null;
      source: 'api' | 'environment';
      createdAt: Date;
      updatedAt: Date;
    },
  ): ChannelView {
    const state = this.#deps.control.state(channel);
    const figures = this.#deps.control.figures(channel.id);
    return {
      id: channel.id,
      object: 'channel',
      provider: channel.provider,
      name: channel.name,
      base_url: extra.baseUrl,
      key_last4: channel.keyLast4,
      weight: channel.weight,
      priority: channel.priority,
      models: extra.models,
      enabled: channel.enabled,
      status: state.status,
      status_reason: state.statusReason,
      cooldown_until: state.cooldownUntil?.toISOString() ?? null,
      source: extra.source,
      created_at: extra.createdAt.toISOString(),
      updated_at: extra.updatedAt.toISOString(),
      requests: figures.requests,
      failures: figures.failures,
      p50_latency_ms: figures.p50LatencyMs,
    };
  }
}
