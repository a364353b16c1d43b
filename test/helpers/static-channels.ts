import type { LiveChannel } from '../../shared/src/channels/channel.ts';
import { snapshotOf } from '../../shared/src/channels/channel-registry.ts';
import { type BreakerView, ChannelRouter } from '../../shared/src/channels/channel-router.ts';
import { environmentChannels } from '../../shared/src/channels/environment-channels.ts';
import type { Config } from '../../shared/src/config/config.ts';

/** A breaker that never opens: for unit tests of what routing does with healthy channels. */
const CLOSED: BreakerView = {
  anyOpen: false,
  view: () => 'closed',
  hasHistory: () => false,
  succeeded: () => undefined,
  failed: () => undefined,
  takeProbe: async () => true,
};

/**
 * Routing over fixed channels (by default the configuration's `<PROVIDER>_API_KEY` ones) with
 * breakers that never open and refusals that change nothing: the routing of a unit test that
 * runs no Redis. Processes and integration tests use the real `startProcessChannels`.
 */
export function staticChannelRouting(
  channels: readonly LiveChannel[] | Pick<Config, 'providers' | 'compatibleUpstreams'>,
): ChannelRouter {
  const list = Array.isArray(channels) ? channels : environmentChannels(channels as Config);
  const snapshot = snapshotOf(list as LiveChannel[]);
  return new ChannelRouter(
    () => snapshot,
    CLOSED,
    { record: () => undefined },
    { autoDisable: async () => undefined },
  );
}
