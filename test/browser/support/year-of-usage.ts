import { addDays, dayOf, startOfDay } from '../../../shared/src/billing/billing-time.ts';
import type { ChargeRecord, MoneyStore } from '../../../shared/src/billing/money-store.ts';

const SEED_MODELS = ['demo/chat', 'demo/embedding', 'demo/image', 'demo/tts'];

/**
 * A year of history for one account: a charge of each of four models on each of the last 365
 * billing days (in `timeZone`), recorded through the store's own contract (ledger entries and
 * day × model usage rows, as settlement writes them). Answers how many charges it recorded. Used by
 * the console's browser tests and by `npm run bench:console`.
 */
export async function recordYearOfUsage(
  money: Pick<MoneyStore, 'recordCharges'>,
  accountId: string,
  timeZone: string,
): Promise<number> {
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
    await money.recordCharges(charges.slice(start, start + 250));
  }
  return charges.length;
}
