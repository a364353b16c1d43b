import type { FastifyInstance } from 'fastify';
import type { AccountsRepository } from '../../../../shared/src/accounts/accounts.repository.ts';
import type {
  CredentialsRepository,
  InvitationPurpose,
} from '../../../../shared/src/accounts/credentials.repository.ts';
import { publicOrigin } from '../../console/public-origin.ts';
import { errorResponses, jsonResponse, OPERATOR, WITH_BODY } from '../../openapi/responses.ts';
import { type AdminAuth, requireAdminToken } from '../../plugins/admin-auth.ts';
import { invitationBodySchema, invitationSchema, toInvitationView } from '../../schemas/invitation.schema.ts';
import { createInvitation } from '../../use-cases/create-invitation.ts';
import { idParamsSchema } from './admin.schema.ts';
import { strictValidatorCompiler } from './admin-validation.ts';

/** What the invitation route needs; registered under the `/admin/v1` prefix. */
export interface AdminInvitationsRouteOptions extends AdminAuth {
  readonly accounts: Pick<AccountsRepository, 'findById'>;
  readonly credentials: Pick<CredentialsRepository, 'createInvitation'>;
  /** The links' origin (`PUBLIC_BASE_URL`); unset: the origin this request came to. */
  readonly publicBaseUrl: string | undefined;
  readonly clock?: () => Date;
}

/**
 * Operator API: `POST /accounts/{id}/invitations` `{purpose?: 'invite'|'reset'}` → 201 `{url,
 * expires_at, purpose}`, a one-time link setting the account's console password (docs/console.md).
 * The account's earlier links stop working. Opening an account does not make one: this does.
 */
export async function adminInvitationsRoutes(
  app: FastifyInstance,
  options: AdminInvitationsRouteOptions,
): Promise<void> {
  requireAdminToken(app, options);
  app.setValidatorCompiler(strictValidatorCompiler);
  const deps = { ...options, clock: options.clock ?? (() => new Date()) };

  app.post<{ Params: { id: string }; Body: { purpose?: InvitationPurpose } | undefined }>(
    '/accounts/:id/invitations',
    {
      schema: {
        tags: ['Operator: console links'],
        operationId: 'createInvitation',
        summary: 'Make a one-time console link',
        description:
          'The account’s earlier links stop working. A request without a body asks for an invitation.',
        params: idParamsSchema,
        body: invitationBodySchema,
        response: {
          201: jsonResponse('The link.', invitationSchema),
          ...errorResponses([...OPERATOR, ...WITH_BODY], {
            404: '`account_not_found`, or no operator API (`ADMIN_TOKEN` unset).',
          }),
        },
      },
    },
    async (request, reply) => {
      const invitation = await createInvitation(deps, {
        accountId: request.params.id,
        purpose: request.body?.purpose ?? 'invite',
        origin: publicOrigin(request, options.publicBaseUrl),
      });
      request.log.info({ accountId: request.params.id, purpose: invitation.purpose }, 'console link made');
      return reply.code(201).send(toInvitationView(invitation));
    },
  );
}
