import type { FastifyInstance } from 'fastify';
import type { AccountsRepository } from '../../../../shared/src/accounts/accounts.repository.ts';
import type { ApiKeysRepository } from '../../../../shared/src/accounts/api-keys.repository.ts';
import type { KeyCache } from '../../../../shared/src/accounts/key-cache.ts';
import {
  type KeySettingsInput,
  keySettingsBodySchema,
} from '../../../../shared/src/accounts/key-settings.ts';
import { emptyResponse, errorResponses, jsonResponse, OPERATOR, WITH_BODY } from '../../openapi/responses.ts';
import { type AdminAuth, requireAdminToken } from '../../plugins/admin-auth.ts';
import { createKey } from '../../use-cases/create-key.ts';
import { deleteKey } from '../../use-cases/delete-key.ts';
import { listKeys } from '../../use-cases/list-keys.ts';
import { updateKey } from '../../use-cases/update-key.ts';
import { createdKeySchema, idParamsSchema, keyListSchema, keySchema, toKeyView } from './admin.schema.ts';
import { strictValidatorCompiler } from './admin-validation.ts';

/** What the key routes need; registered under the `/admin/v1` prefix. */
export interface AdminKeysRouteOptions extends AdminAuth {
  readonly accounts: Pick<AccountsRepository, 'findById'>;
  readonly keys: ApiKeysRepository;
  readonly keyCache: Pick<KeyCache, 'invalidateKey'>;
  readonly clock?: () => Date;
}

type IdParams = { id: string };

const tags = ['Operator: keys'];
const accountNotFound = { 404: '`account_not_found`, or no operator API (`ADMIN_TOKEN` unset).' } as const;
const keyNotFound = { 404: '`key_not_found`, or no operator API (`ADMIN_TOKEN` unset).' } as const;

/** Operator API: create, list, change and delete an account's API keys. */
export async function adminKeysRoutes(app: FastifyInstance, options: AdminKeysRouteOptions): Promise<void> {
  requireAdminToken(app, options);
  app.setValidatorCompiler(strictValidatorCompiler);
  const deps = { ...options, clock: options.clock ?? (() => new Date()) };

  app.post<{ Params: IdParams; Body: KeySettingsInput | undefined }>(
    '/accounts/:id/keys',
    {
      schema: {
        tags,
        operationId: 'createKey',
        summary: 'Create a key',
        description: 'At most 25 active keys per account. Every setting may be left out (its default).',
        params: idParamsSchema,
        body: keySettingsBodySchema,
        response: {
          201: jsonResponse('The key, with its secret shown this once.', createdKeySchema),
          ...errorResponses([...OPERATOR, ...WITH_BODY], {
            ...accountNotFound,
            409: '`key_limit_reached`: the account has 25 active keys.',
          }),
        },
      },
    },
    async (request, reply) => {
      const created = await createKey(deps, { accountId: request.params.id, settings: request.body ?? {} });
      request.log.info({ accountId: created.record.accountId, keyId: created.record.id }, 'api key created');
      return reply.code(201).send({ ...toKeyView(created.record, deps.clock()), key: created.key });
    },
  );

  app.get<{ Params: IdParams }>(
    '/accounts/:id/keys',
    {
      schema: {
        tags,
        operationId: 'listKeys',
        summary: 'List an account’s keys',
        params: idParamsSchema,
        response: {
          200: jsonResponse('The keys, never their secrets.', keyListSchema),
          ...errorResponses(OPERATOR, accountNotFound),
        },
      },
    },
    async (request) => {
      const keys = await listKeys(deps, { accountId: request.params.id });
      const now = deps.clock();
      return { object: 'list', data: keys.map((key) => toKeyView(key, now)) };
    },
  );

  app.patch<{ Params: IdParams; Body: KeySettingsInput }>(
    '/keys/:id',
    {
      schema: {
        tags,
        operationId: 'updateKey',
        summary: 'Change a key’s settings',
        params: idParamsSchema,
        body: keySettingsBodySchema,
        response: {
          200: jsonResponse('The key.', keySchema),
          ...errorResponses([...OPERATOR, ...WITH_BODY], {
            ...keyNotFound,
            409: '`key_limit_reached`: activating it would make a 26th active key.',
          }),
        },
      },
    },
    async (request) => {
      const updated = await updateKey(deps, { keyId: request.params.id, settings: request.body ?? {} });
      request.log.info({ keyId: updated.id, fields: Object.keys(request.body ?? {}) }, 'api key updated');
      return toKeyView(updated, deps.clock());
    },
  );

  app.delete<{ Params: IdParams }>(
    '/keys/:id',
    {
      schema: {
        tags,
        operationId: 'deleteKey',
        summary: 'Delete a key',
        params: idParamsSchema,
        response: { 204: emptyResponse('The key is deleted.'), ...errorResponses(OPERATOR, keyNotFound) },
      },
    },
    async (request, reply) => {
      await deleteKey(deps, { keyId: request.params.id });
      request.log.info({ keyId: request.params.id }, 'api key deleted');
      return reply.code(204).send();
    },
  );
}
