import { TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';

/** The password the browser tests set through invitation links. */
export const PASSWORD = 'correct horse battery';

/** Calls the operator API of a listening gateway over HTTP (so links carry its real origin). */
export async function adminCall<T = Record<string, unknown>>(
  origin: string,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${origin}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`admin ${method} ${path} answered ${response.status}: ${text}`);
  return (text === '' ? {} : JSON.parse(text)) as T;
}

/** A fresh one-time invitation link of the account (`POST /admin/v1/accounts/{id}/invitations`). */
export async function invitationFor(origin: string, accountId: string): Promise<string> {
  const invitation = await adminCall<{ url: string }>(origin, 'POST', `/accounts/${accountId}/invitations`, {
    purpose: 'invite',
  });
  return invitation.url;
}

/** Today's year and month name in the Persian calendar, in Persian digits, as the console shows them. */
export function persianToday(): { year: string; month: string } {
  const parts = new Intl.DateTimeFormat('fa-IR-u-ca-persian', {
    year: 'numeric',
    month: 'short',
    timeZone: 'Asia/Tehran',
  }).formatToParts(new Date());
  return {
    year: parts.find((part) => part.type === 'year')?.value ?? '',
    month: parts.find((part) => part.type === 'month')?.value ?? '',
  };
}
