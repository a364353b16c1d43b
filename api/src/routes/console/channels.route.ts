import type { FastifyInstance } from 'fastify';
import type { ChannelAdmin } from '../../channels/channel-admin.ts';
import { guardConsoleRoutes } from '../../console/console-auth.ts';
import { registerChannelRoutes } from '../admin/channels.route.ts';
import type { ConsoleDeps } from './console-deps.ts';

/** Operators' channels in the console: the operator API's channel endpoints behind an operator session. */
export async function operatorChannelsRoutes(
  app: FastifyInstance,
  deps: ConsoleDeps & { readonly channelAdmin: ChannelAdmin },
): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'operator',
  );
  registerChannelRoutes(app, { channels: deps.channelAdmin, models: () => deps.catalogue.list() });
}
