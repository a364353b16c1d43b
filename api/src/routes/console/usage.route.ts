import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { guardConsoleRoutes, requireHolderAccount } from '../../console/console-auth.ts';
import { toLedgerEntryWithUsageView } from '../../schemas/ledger-entry.schema.ts';
import { ledgerPage } from '../../use-cases/ledger-page.ts';
import { usageCsv, usageReport } from '../../use-cases/usage-report.ts';
import {
  consoleErrorResponses,
  type LedgerQuery,
  ledgerPageSchema,
  ledgerQuerySchema,
  toUsageReportView,
  type UsageQuery,
  usageQuerySchema,
  usageReportSchema,
} from './console.schema.ts';
import type { ConsoleDeps } from './console-deps.ts';

/** Schemas of the usage report: JSON, or CSV (a string body, not serialized by the JSON schema). */
export const usageRouteSchema = {
  querystring: usageQuerySchema,
  response: { 200: usageReportSchema, ...consoleErrorResponses },
} as const;

export const ledgerRouteSchema = {
  querystring: ledgerQuerySchema,
  response: { 200: ledgerPageSchema, ...consoleErrorResponses },
} as const;

/**
 * Answers an account's usage report: JSON, or CSV with `format=csv` or `Accept: text/csv`
 * (a download named after the range).
 */
export async function sendUsageReport(
  deps: ConsoleDeps,
  accountId: string,
  request: FastifyRequest<{ Querystring: UsageQuery }>,
  reply: FastifyReply,
) {
  const { from, to, model, format } = request.query;
  const report = await usageReport(
    { money: deps.console.money, timeZone: deps.config.billing.timeZone, clock: deps.accounts.clock },
    { accountId, from, to, model },
  );
  if (format === 'csv' || (format === undefined && wantsCsv(request))) {
    return reply
      .code(200)
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="usage-${report.from}-${report.to}.csv"`)
      .send(usageCsv(report));
  }
  return toUsageReportView(report);
}

/** An account's ledger page, newest first. */
export async function sendLedgerPage(deps: ConsoleDeps, accountId: string, query: LedgerQuery) {
  const page = await ledgerPage(deps, { accountId, limit: query.limit, before: query.before });
  return { object: 'list', data: page.entries.map(toLedgerEntryWithUsageView), next: page.next };
}

/** A holder's usage report (JSON or CSV) and ledger. */
export async function usageRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'holder',
  );

  app.get<{ Querystring: UsageQuery }>('/usage', { schema: usageRouteSchema }, async (request, reply) =>
    sendUsageReport(deps, requireHolderAccount(request).id, request, reply),
  );

  app.get<{ Querystring: LedgerQuery }>('/ledger', { schema: ledgerRouteSchema }, async (request) =>
    sendLedgerPage(deps, requireHolderAccount(request).id, request.query),
  );
}

/** `Accept: text/csv` preferred over JSON (absent or `*\/*` means JSON). */
function wantsCsv(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept) && !/(^|,)\s*application\/json/i.test(accept);
}
