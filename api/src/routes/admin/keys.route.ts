import type { FastifyInstance } from 'fastify';
import type { AccountsRepository } from '../../../../shared/src/accounts/accounts.repository.ts';
import type { ApiKeysRepository } from '../../../../shared/src/accounts/api-keys.repository.ts';
import type { KeyCache } from '../../../../shared/src/accounts/key-cache.ts';
import type { KeySettingsInput } from '../../../../shared/src/accounts/key-settings.ts';
import { requireAdminToken } from '../../plugins/admin-auth.ts';
import { createKey } from '../../use-cases/create-key.ts';
import { deleteKey } from '../../use-cases/delete-key.ts';
import { listKeys } from '../../use-cases/list-keys.ts';
import { updateKey } from '../../use-cases/update-key.ts';
import {
  adminErrorResponses,
  idParamsSchema,
  keyListSchema,
  keyWriteSchemas,
  toKeyView,
} from './admin.schema.ts';
import { strictValidatorCompiler } from './admin-validation.ts';

/** What the key routes need; registered under the `/admin/v1` prefix. */
export interface AdminKeysRouteOptions {
  /** Without a token the routes answer 404 (the operator API does not exist). */
  readonly adminToken: string | undefined;
  readonly accounts: Pick<AccountsRepository, 'findById'>;
  readonly keys: ApiKeysRepository;
  readonly keyCache: Pick<KeyCache, 'invalidateKey'>;
  readonly clock?: () => Date;
}

type IdParams = { id: string };

/** Operator API: create, list, change and delete an account's API keys. */
export async function adminKeysRoutes(app: FastifyInstance, options: AdminKeysRouteOptions): Promise<void> {
  requireAdminToken(app, options.adminToken);
  app.setValidatorCompiler(strictValidatorCompiler);
  const deps = { ...options, clock: options.clock ?? (() => new Date()) };
  const schemas = keyWriteSchemas(adminErrorResponses);

  app.post<{ Params: IdParams; Body: KeySettingsInput | undefined }>(
    '/accounts/:id/keys',
    { schema: { params: idParamsSchema, ...schemas.create } },
    async (request, reply) => {
      const created = await createKey(deps, { accountId: request.params.id, settings: request.body ?? {} });
      request.log.info({ accountId: created.record.accountId, keyId: created.record.id }, 'api key created');
      return reply.code(201).send({ ...toKeyView(created.record, deps.clock()), key: created.key });
    },
  );

  app.get<{ Params: IdParams }>(
    '/accounts/:id/keys',
    { schema: { params: idParamsSchema, response: { 200: keyListSchema, ...adminErrorResponses } } },
    async (request) => {
      const keys = await listKeys(deps, { accountId: request.params.id });
      const now = deps.clock();
      return { object: 'list', data: keys.map((key) => toKeyView(key, now)) };
    },
  );

  app.patch<{ Params: IdParams; Body: KeySettingsInput }>(
    '/keys/:id',
    { schema: schemas.update },
    async (request) => {
      const updated = await updateKey(deps, { keyId: request.params.id, settings: request.body ?? {} });
      request.log.info({ keyId: updated.id, fields: Object.keys(request.body ?? {}) }, 'api key updated');
      return toKeyView(updated, deps.clock());
    },
  );

  app.delete<{ Params: IdParams }>('/keys/:id', { schema: schemas.remove }, async (request, reply) => {
    await deleteKey(deps, { keyId: request.params.id });
    request.log.info({ keyId: request.params.id }, 'api key deleted');
    return reply.code(204).send();
  });
}
