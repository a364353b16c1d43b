import { channelSecretsOf } from '../../../shared/src/channels/channel-secrets.ts';
import { providerBaseUrl } from '../../../shared/src/channels/environment-channels.ts';
import type { AppDeps } from '../app-deps.ts';
import { ChannelAdmin } from './channel-admin.ts';
import { testChannel } from './test-channel.ts';

/** The operator's channel operations over this process's channels, store and catalogue. */
export function channelAdminOf(deps: AppDeps): ChannelAdmin {
  const models = () => deps.catalogue.list();
  const { services, config } = deps;
  return new ChannelAdmin({
    repository: services.channels.repository,
    secrets: channelSecretsOf(config),
    control: services.channels,
    vocabulary: { compatibleProviders: Object.keys(config.compatibleUpstreams), models },
    defaultBaseUrl: (provider) => providerBaseUrl(config, provider),
    jobs: services.media.jobs,
    billing: services.billing,
    test: (channel, catalogueModels) => testChannel(services.upstream, channel, catalogueModels),
    startedAt: new Date(),
    now: services.accounts.clock,
  });
}
