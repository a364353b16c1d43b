/**
 * Billing days are days of the service's `BILLING_TIME_ZONE`, not of the browser's zone: usage
 * rows, the overview's range and spend caps begin at midnight there. The session answer tells the
 * zone and the day it is there (docs/console.md); every range the console offers ends on that day.
 */
import type { BillingCalendar } from './api/types.ts';

let calendar: BillingCalendar | undefined;

/** Remembers the calendar of the session's answer (sign-in, `GET /session`). */
export function setBillingCalendar(next: BillingCalendar | undefined): void {
  calendar = next;
}

/**
 * Today in the billing zone, from the browser's clock, so a page left open past midnight there
 * moves on; the API's own `today` when the browser does not know the zone, the browser's local
 * date only before any session answered.
 */
export function billingToday(now: Date = new Date()): string {
  if (calendar === undefined) return localDay(now);
  try {
    return dayIn(now, calendar.time_zone);
  } catch {
    return calendar.today;
  }
}

/** `YYYY-MM-DD` of an instant in a time zone (Latin digits, Gregorian calendar). */
export function dayIn(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US-u-ca-gregory-nu-latn', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

function localDay(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
