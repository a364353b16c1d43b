import type { FastifyInstance } from 'fastify';
import type { CatalogueModel } from '../../../../shared/src/catalogue/catalogue.ts';
import type { ChannelCreateBody, ChannelPatchBody } from '../../../../shared/src/channels/channel-input.ts';
import type { ChannelAdmin } from '../../channels/channel-admin.ts';
import { emptyResponse, errorResponses, jsonResponse, OPERATOR, WITH_BODY } from '../../openapi/responses.ts';
import { type AdminAuth, requireAdminToken } from '../../plugins/admin-auth.ts';
import { idParamsSchema } from './admin.schema.ts';
import { strictValidatorCompiler } from './admin-validation.ts';
import {
  channelCreateSchema,
  channelListSchema,
  channelPatchSchema,
  channelSchema,
  channelTestSchema,
  deleteChannelQuerySchema,
} from './channels.schema.ts';

/** What the channel routes need. */
export interface ChannelRoutesDeps {
  readonly channels: ChannelAdmin;
  /** The catalogue's models now (the test picks the cheapest chat model of the channel). */
  readonly models: () => readonly CatalogueModel[];
}

/** Registered under the `/admin/v1` prefix, behind `ADMIN_TOKEN`. */
export interface AdminChannelsRouteOptions extends AdminAuth, ChannelRoutesDeps {}

type IdParams = { id: string };

const tags = ['Operator: channels'];
const notFound = { 404: '`channel_not_found`, or no operator API (`ADMIN_TOKEN` unset).' } as const;
const fieldErrors = {
  400: 'A field is missing, of the wrong type or out of range; an unknown provider (`unknown_provider`), a `base_url` that is not http(s), `models` naming a model of another provider or none, a taken name (`channel_name_taken`), or no `CHANNEL_SECRET_KEY` (`channel_secret_key_missing`).',
} as const;
const readOnly = {
  409: '`channel_read_only`: an environment channel (`<PROVIDER>_API_KEY`) cannot be changed here.',
};

/** Operator API: the upstream channels (docs/channels.md). */
export async function adminChannelsRoutes(
  app: FastifyInstance,
  options: AdminChannelsRouteOptions,
): Promise<void> {
  requireAdminToken(app, options);
  registerChannelRoutes(app, options);
}

/**
 * The channel endpoints, in the scope of their guard: the operator API's token, or the console's
 * operator session (`/console/api/channels`, the same bodies and answers).
 */
export function registerChannelRoutes(app: FastifyInstance, options: ChannelRoutesDeps): void {
  app.setValidatorCompiler(strictValidatorCompiler);
  const { channels } = options;

  app.post<{ Body: ChannelCreateBody }>(
    '/channels',
    {
      schema: {
        tags,
        operationId: 'createChannel',
        summary: 'Create a channel',
        description: 'Takes effect on every api and worker process within 2 s.',
        body: channelCreateSchema,
        response: {
          201: jsonResponse('The channel (its credential never shown again).', channelSchema),
          ...errorResponses([...OPERATOR, ...WITH_BODY], fieldErrors),
        },
      },
    },
    async (request, reply) => {
      const created = await channels.create(request.body);
      request.log.info({ channel: created.id, provider: created.provider }, 'channel created');
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/channels',
    {
      schema: {
        tags,
        operationId: 'listChannels',
        summary: 'List channels',
        description: 'Stored ones, then the environment ones; with their state and last hour’s figures.',
        response: { 200: jsonResponse('The channels.', channelListSchema), ...errorResponses(OPERATOR) },
      },
    },
    async () => ({ object: 'list', data: await channels.list() }),
  );

  app.get<{ Params: IdParams }>(
    '/channels/:id',
    {
      schema: {
        tags,
        operationId: 'getChannel',
        summary: 'Get a channel',
        params: idParamsSchema,
        response: { 200: jsonResponse('The channel.', channelSchema), ...errorResponses(OPERATOR, notFound) },
      },
    },
    async (request) => channels.get(request.params.id),
  );

  app.patch<{ Params: IdParams; Body: ChannelPatchBody }>(
    '/channels/:id',
    {
      schema: {
        tags,
        operationId: 'updateChannel',
        summary: 'Change a channel',
        description:
          'Any field; `api_key` replaces the credential. A successful edit of an `auto_disabled` channel makes it `healthy`.',
        params: idParamsSchema,
        body: channelPatchSchema,
        response: {
          200: jsonResponse('The channel.', channelSchema),
          ...errorResponses([...OPERATOR, ...WITH_BODY], { ...fieldErrors, ...notFound, ...readOnly }),
        },
      },
    },
    async (request) => {
      const updated = await channels.update(request.params.id, request.body);
      request.log.info({ channel: updated.id, fields: Object.keys(request.body) }, 'channel updated');
      return updated;
    },
  );

  app.delete<{ Params: IdParams; Querystring: { force?: 'true' | 'false' } }>(
    '/channels/:id',
    {
      schema: {
        tags,
        operationId: 'deleteChannel',
        summary: 'Delete a channel',
        params: idParamsSchema,
        querystring: deleteChannelQuerySchema,
        response: {
          204: emptyResponse('The channel is deleted.'),
          ...errorResponses(OPERATOR, {
            ...notFound,
            409: '`channel_read_only` (an environment channel), or `channel_has_renders`: videos in flight on it (`?force=true` fails them uncharged).',
          }),
        },
      },
    },
    async (request, reply) => {
      await channels.remove(request.params.id, request.query.force === 'true');
      request.log.info({ channel: request.params.id }, 'channel deleted');
      return reply.code(204).send();
    },
  );

  app.post<{ Params: IdParams }>(
    '/channels/:id/test',
    {
      schema: {
        tags,
        operationId: 'testChannel',
        summary: 'Test a channel',
        description:
          'One small real request (a 1-token chat, or the provider’s cheapest documented call). A pass makes an `auto_disabled` channel `healthy`; a refused credential disables it.',
        params: idParamsSchema,
        response: {
          200: jsonResponse('How the test went.', channelTestSchema),
          ...errorResponses(OPERATOR, notFound),
        },
      },
    },
    async (request) => {
      const result = await channels.test(request.params.id, options.models());
      request.log.info(
        { channel: request.params.id, ok: result.ok, status: result.status },
        'channel tested',
      );
      return result;
    },
  );
}
