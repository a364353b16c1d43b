import type { FastifyInstance } from 'fastify';
import type { KeySettingsInput } from '../../../../shared/src/accounts/key-settings.ts';
import { guardConsoleRoutes, requireHolderAccount } from '../../console/console-auth.ts';
import { createKey } from '../../use-cases/create-key.ts';
import { deleteKey } from '../../use-cases/delete-key.ts';
import { ensureOwnKey } from '../../use-cases/ensure-own-key.ts';
import { listKeysWithUse } from '../../use-cases/list-keys-with-use.ts';
import { updateKey } from '../../use-cases/update-key.ts';
import { keyWriteSchemas, toKeyView } from '../admin/admin.schema.ts';
import { consoleErrorResponses, keyWithUseListSchema, toKeyWithUseView } from './console.schema.ts';
import type { ConsoleDeps } from './console-deps.ts';

type IdParams = { id: string };

/** The keys' list with this month's spend and last use (a holder's own, or any account's for operators). */
export async function keysWithUseOf(deps: ConsoleDeps, accountId: string) {
  const keys = await listKeysWithUse(
    {
      ...deps.accounts,
      money: deps.console.money,
      timeZone: deps.config.billing.timeZone,
      clock: deps.accounts.clock,
    },
    { accountId },
  );
  const now = deps.accounts.clock();
  return { object: 'list', data: keys.map((key) => toKeyWithUseView(key, now)) };
}

/**
 * A holder's keys: list, create (every setting of the spec; the full key is in this answer only),
 * edit (enable and disable included) and delete. Through the same use cases as the operator API,
 * so a change reaches every replica's key cache at once. Another account's key is a 404.
 */
export async function keysRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'holder',
  );
  const accounts = deps.accounts;
  const schemas = keyWriteSchemas(consoleErrorResponses);

  app.get(
    '/keys',
    { schema: { response: { 200: keyWithUseListSchema, ...consoleErrorResponses } } },
    async (request) => keysWithUseOf(deps, requireHolderAccount(request).id),
  );

  app.post<{ Body: KeySettingsInput | undefined }>(
    '/keys',
    { schema: schemas.create },
    async (request, reply) => {
      const account = requireHolderAccount(request);
      const created = await createKey(accounts, { accountId: account.id, settings: request.body ?? {} });
      request.log.info({ accountId: account.id, keyId: created.record.id }, 'console: api key created');
      return reply.code(201).send({ ...toKeyView(created.record, accounts.clock()), key: created.key });
    },
  );

  app.patch<{ Params: IdParams; Body: KeySettingsInput }>(
    '/keys/:id',
    { schema: schemas.update },
    async (request) => {
      const account = requireHolderAccount(request);
      await ensureOwnKey(accounts, { keyId: request.params.id, accountId: account.id });
      const updated = await updateKey(accounts, { keyId: request.params.id, settings: request.body ?? {} });
      request.log.info(
        { keyId: updated.id, fields: Object.keys(request.body ?? {}) },
        'console: api key updated',
      );
      return toKeyView(updated, accounts.clock());
    },
  );

  app.delete<{ Params: IdParams }>('/keys/:id', { schema: schemas.remove }, async (request, reply) => {
    const account = requireHolderAccount(request);
    await ensureOwnKey(accounts, { keyId: request.params.id, accountId: account.id });
    await deleteKey(accounts, { keyId: request.params.id });
    request.log.info({ keyId: request.params.id }, 'console: api key deleted');
    return reply.code(204).send();
  });
}
