/** One function per `/console/api` endpoint of docs/console.md. */
import { consoleApi, consoleFetch } from './client.ts';
import type {
  Account,
  AccountPage,
  ApiKey,
  Channel,
  ChannelInput,
  ChannelTest,
  CreatedAccount,
  CreatedKey,
  CreatedVouchers,
  FailedJob,
  Invitation,
  KeySettings,
  LedgerPage,
  Model,
  Overview,
  Payment,
  QueueCounts,
  RequestPage,
  RequestRecord,
  SelfServeSettings,
  Session,
  StartedPayment,
  UsageReport,
  Video,
  Voucher,
} from './types.ts';

type List<T> = { readonly data: readonly T[] };

// ---- sessions

export const getSession = () => consoleApi<Session>('GET', '/session', { expectUnauthorized: true });

export const signIn = (email: string, password: string) =>
  consoleApi<Session>('POST', '/session', { body: { email, password }, expectUnauthorized: true });

export const operatorSignIn = (token: string) =>
  consoleApi<Session>('POST', '/operator-session', { body: { token }, expectUnauthorized: true });

export const signOut = () => consoleApi<void>('DELETE', '/session', { expectUnauthorized: true });

export const signOutEverywhere = () => consoleApi<void>('DELETE', '/sessions', { expectUnauthorized: true });

export const setPassword = (token: string, password: string) =>
  consoleApi<Session>('POST', '/password/set', { body: { token, password }, expectUnauthorized: true });

export const changePassword = (currentPassword: string, newPassword: string) =>
  consoleApi<void>('PUT', '/password', {
    body: { current_password: currentPassword, new_password: newPassword },
  });

// ---- account holder

export const getOverview = (days: number, signal?: AbortSignal) =>
  consoleApi<Overview>('GET', '/overview', { query: { days }, signal });

export const listKeys = async (signal?: AbortSignal) =>
  (await consoleApi<List<ApiKey>>('GET', '/keys', { signal })).data;

export const createKey = (settings: KeySettings) =>
  consoleApi<CreatedKey>('POST', '/keys', { body: settings });

export const updateKey = (id: string, settings: KeySettings) =>
  consoleApi<ApiKey>('PATCH', `/keys/${encodeURIComponent(id)}`, { body: settings });

export const deleteKey = (id: string) => consoleApi<void>('DELETE', `/keys/${encodeURIComponent(id)}`);

export interface UsageQuery {
  readonly from?: string;
  readonly to?: string;
  readonly model?: string;
}

export const getUsage = (query: UsageQuery, signal?: AbortSignal) =>
  consoleApi<UsageReport>('GET', '/usage', { query: { ...query }, signal });

/** The usage rows as a CSV file (a Blob to save). */
export async function usageCsv(query: UsageQuery, accountId?: string): Promise<Blob> {
  const path = accountId === undefined ? '/usage' : `/accounts/${encodeURIComponent(accountId)}/usage`;
  const response = await consoleFetch('GET', path, {
    query: { ...query, format: 'csv' },
    headers: { accept: 'text/csv' },
  });
  return response.blob();
}

export const getLedger = (query: { limit: number; before?: string }, signal?: AbortSignal) =>
  consoleApi<LedgerPage>('GET', '/ledger', { query, signal });

export const listModels = async (signal?: AbortSignal) =>
  (await consoleApi<List<Model>>('GET', '/models', { signal, expectUnauthorized: true })).data;

export const listVideos = async (signal?: AbortSignal) =>
  (await consoleApi<List<Video>>('GET', '/videos', { signal })).data;

// ---- operator

export const searchAccounts = (query: { q?: string; limit: number; cursor?: string }, signal?: AbortSignal) =>
  consoleApi<AccountPage>('GET', '/accounts', { query, signal });

export const getAccount = (id: string, signal?: AbortSignal) =>
  consoleApi<Account>('GET', `/accounts/${encodeURIComponent(id)}`, { signal });

export const createAccount = (email: string, name: string | undefined) =>
  consoleApi<CreatedAccount>('POST', '/accounts', { body: name ? { email, name } : { email } });

export const setAccountStatus = (id: string, status: 'active' | 'inactive') =>
  consoleApi<Account>('PATCH', `/accounts/${encodeURIComponent(id)}`, { body: { status } });

/**
 * Credits an account. `idempotencyKey` names one submission of the form: a retried request (a lost
 * answer, a second click) carries the same key, and the server credits once.
 */
export const topUp = (id: string, top: { amount: number; reference: string; idempotencyKey: string }) =>
  consoleApi<{ balance: number }>('POST', `/accounts/${encodeURIComponent(id)}/topups`, {
    body: top.reference === '' ? { amount: top.amount } : { amount: top.amount, reference: top.reference },
    headers: { 'idempotency-key': top.idempotencyKey },
  });

/**
 * A fresh random idempotency key (128 bits, hex). `crypto.getRandomValues`, not `randomUUID`:
 * the latter exists only on HTTPS pages, and a console may be served over plain HTTP.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export const createInvitation = (id: string, purpose: 'invite' | 'reset') =>
  consoleApi<Invitation>('POST', `/accounts/${encodeURIComponent(id)}/invitations`, { body: { purpose } });

export const accountKeys = async (id: string, signal?: AbortSignal) =>
  (await consoleApi<List<ApiKey>>('GET', `/accounts/${encodeURIComponent(id)}/keys`, { signal })).data;

export const accountLedger = (id: string, query: { limit: number; before?: string }, signal?: AbortSignal) =>
  consoleApi<LedgerPage>('GET', `/accounts/${encodeURIComponent(id)}/ledger`, { query, signal });

export const accountUsage = (id: string, query: UsageQuery, signal?: AbortSignal) =>
  consoleApi<UsageReport>('GET', `/accounts/${encodeURIComponent(id)}/usage`, {
    query: { ...query },
    signal,
  });

export const listQueues = async (signal?: AbortSignal) =>
  (await consoleApi<List<QueueCounts>>('GET', '/queues', { signal })).data;

export const failedJobs = async (queue: string, signal?: AbortSignal) =>
  (await consoleApi<List<FailedJob>>('GET', `/queues/${encodeURIComponent(queue)}/failed`, { signal })).data;

export const retryJob = (queue: string, jobId: string) =>
  consoleApi<void>('POST', `/queues/${encodeURIComponent(queue)}/failed/${encodeURIComponent(jobId)}/retry`);

export const discardJob = (queue: string, jobId: string) =>
  consoleApi<void>(
    'POST',
    `/queues/${encodeURIComponent(queue)}/failed/${encodeURIComponent(jobId)}/discard`,
  );

// ---- self-serve: sign-up, forgotten password, top-ups through the gateway, vouchers

/** The page's language goes with the mails it asks for (their language). */
const language = () => ({ 'accept-language': document.documentElement.lang || 'en' });

export const getSelfServe = (signal?: AbortSignal) =>
  consoleApi<SelfServeSettings>('GET', '/self-serve', { signal, expectUnauthorized: true });

export const signUp = (email: string, password: string, name: string | null) =>
  consoleApi<{ status: string }>('POST', '/sign-up', {
    body: name === null ? { email, password } : { email, password, name },
    headers: language(),
    expectUnauthorized: true,
  });

export const verifySignUp = (token: string) =>
  consoleApi<Session>('POST', '/sign-up/verify', { body: { token }, expectUnauthorized: true });

export const forgotPassword = (email: string) =>
  consoleApi<{ status: string }>('POST', '/password/forgot', {
    body: { email },
    headers: language(),
    expectUnauthorized: true,
  });

export const startPayment = (amount: number) =>
  consoleApi<StartedPayment>('POST', '/payments', { body: { amount } });

export const listPayments = async (signal?: AbortSignal) =>
  (await consoleApi<List<Payment>>('GET', '/payments', { signal })).data;

export const redeemVoucher = (code: string) =>
  consoleApi<{ amount: number; balance: number }>('POST', '/vouchers/redeem', { body: { code } });

export const createVouchers = (body: { amount: number; count: number; expires_at?: string; note?: string }) =>
  consoleApi<CreatedVouchers>('POST', '/vouchers', { body });

export const listVouchers = async (status: 'used' | 'unused' | undefined, signal?: AbortSignal) =>
  (await consoleApi<List<Voucher>>('GET', '/vouchers', { query: { status }, signal })).data;

export const accountPayments = async (accountId: string, signal?: AbortSignal) =>
  (await consoleApi<List<Payment>>('GET', `/accounts/${encodeURIComponent(accountId)}/payments`, { signal }))
    .data;

// ---- upstream channels (operator)

// ---- request log (holder: own account; operator: every account)

export interface RequestQuery {
  readonly account_id?: string;
  readonly key_id?: string;
  readonly model?: string;
  readonly status?: string;
  readonly from?: string;
  readonly to?: string;
  readonly cursor?: string;
  readonly limit?: number;
}

const requestsPath = (operator: boolean) => (operator ? '/operator/requests' : '/requests');

/** Only the filters that are set (an empty one is no filter). */
function setFilters(query: RequestQuery): Record<string, string | number> {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== '')) as Record<
    string,
    string | number
  >;
}

export const listRequests = (operator: boolean, query: RequestQuery, signal?: AbortSignal) =>
  consoleApi<RequestPage>('GET', requestsPath(operator), { query: setFilters(query), signal });

export const getRequest = (operator: boolean, id: string, signal?: AbortSignal) =>
  consoleApi<RequestRecord>('GET', `${requestsPath(operator)}/${encodeURIComponent(id)}`, { signal });

/** The filtered range as a CSV file (streamed by the server; a Blob to save). */
export async function requestsCsv(operator: boolean, query: RequestQuery): Promise<Blob> {
  const { cursor: _cursor, limit: _limit, ...range } = query;
  const response = await consoleFetch('GET', requestsPath(operator), {
    query: { ...setFilters(range), format: 'csv' },
    headers: { accept: 'text/csv' },
  });
  return response.blob();
}
export const listChannels = async (signal?: AbortSignal) =>
  (await consoleApi<List<Channel>>('GET', '/channels', { signal })).data;

export const createChannel = (body: ChannelInput) => consoleApi<Channel>('POST', '/channels', { body });

export const updateChannel = (id: string, body: ChannelInput) =>
  consoleApi<Channel>('PATCH', `/channels/${encodeURIComponent(id)}`, { body });

export const deleteChannel = (id: string, force = false) =>
  consoleApi<void>(
    'DELETE',
    `/channels/${encodeURIComponent(id)}`,
    force ? { query: { force: 'true' } } : {},
  );

export const testChannel = (id: string) =>
  consoleApi<ChannelTest>('POST', `/channels/${encodeURIComponent(id)}/test`);
