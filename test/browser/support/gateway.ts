import { addDays, dayOf, startOfDay } from '../../../shared/src/billing/billing-time.ts';
import type { ChargeRecord } from '../../../shared/src/billing/money-store.ts';
import { TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import type { ListeningApp } from '../../helpers/listening-app.ts';

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

const SEED_MODELS = ['demo/chat', 'demo/embedding', 'demo/image', 'demo/tts'];

/**
 * A year of history for one account: a charge of each of four models on each of the last 365
 * billing days, recorded through the store's own contract (ledger entries and day × model usage
 * rows, as settlement writes them). Answers how many charges it recorded.
 */
export async function seedYearOfUsage(gateway: ListeningApp, accountId: string): Promise<number> {
  const timeZone = gateway.config.billing.timeZone;
  const today = dayOf(new Date(), timeZone);
  const charges: ChargeRecord[] = [];
  for (let back = 364; back >= 0; back -= 1) {
    const day = addDays(today, -back);
    const createdAt = new Date(startOfDay(day, timeZone).getTime() + 12 * 3600 * 1000);
    SEED_MODELS.forEach((model, index) => {
      charges.push({
        id: `seed-${accountId}-${day}-${index}`,
        accountId,
        keyId: null,
        model,
        costMicros: BigInt(100_000 * (index + 1) + ((back * 7919) % 90_000)),
        usage: { requests: 3 + index, inputTokens: 1200 + back, outputTokens: 300 + index * 10 },
        day,
        month: day.slice(0, 7),
        createdAt: createdAt > new Date() ? new Date() : createdAt,
      });
    });
  }
  for (let start = 0; start < charges.length; start += 250) {
    await gateway.connections.store.money.recordCharges(charges.slice(start, start + 250));
  }
  return charges.length;
}
