/** Every client route of the console (served under `/console/` by the api). */
export const BASE = '/console';

export const paths = {
  signIn: `${BASE}/sign-in`,
  signUp: `${BASE}/sign-up`,
  checkMail: `${BASE}/check-mail`,
  verify: `${BASE}/verify`,
  forgot: `${BASE}/forgot`,
  invite: `${BASE}/invite`,
  reset: `${BASE}/reset`,
  overview: `${BASE}/overview`,
  keys: `${BASE}/keys`,
  usage: `${BASE}/usage`,
  wallet: `${BASE}/wallet`,
  models: `${BASE}/models`,
  playground: `${BASE}/playground`,
  media: `${BASE}/media`,
  account: `${BASE}/account`,
  requests: `${BASE}/requests`,
  operatorAccounts: `${BASE}/operator/accounts`,
  operatorQueues: `${BASE}/operator/queues`,
  operatorVouchers: `${BASE}/operator/vouchers`,
  operatorCatalogue: `${BASE}/operator/catalogue`,
  operatorRequests: `${BASE}/operator/requests`,
  operatorChannels: `${BASE}/operator/channels`,
} as const;

export const operatorAccount = (id: string) => `${paths.operatorAccounts}/${encodeURIComponent(id)}`;

export function homeOf(role: 'holder' | 'operator'): string {
  return role === 'operator' ? paths.operatorAccounts : paths.overview;
}
