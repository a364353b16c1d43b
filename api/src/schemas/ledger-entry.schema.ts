import type { LedgerEntry } from '../../../shared/src/billing/billing.ts';
import { microsToIrt } from '../../../shared/src/billing/money.ts';

// In the order the JSON lists them: an entry's own fields, then (console only) a charge's token
// counts, then when and in what state.
const entryProperties = {
  id: { type: 'string' },
  kind: { type: 'string', enum: ['charge', 'topup', 'adjustment'] },
  amount: { type: 'number', description: 'Toman, signed: charges are negative.' },
  model: { type: ['string', 'null'] },
  key_id: { type: ['string', 'null'] },
  reference: { type: ['string', 'null'] },
} as const;

const usageProperties = {
  requests: { type: ['integer', 'null'] },
  input_tokens: { type: ['integer', 'null'] },
  output_tokens: { type: ['integer', 'null'] },
} as const;

const stateProperties = {
  created_at: { type: 'string', format: 'date-time' },
  state: { type: 'string', enum: ['pending', 'applied'] },
} as const;

const ledgerEntryProperties = { ...entryProperties, ...stateProperties } as const;

/** A ledger entry as the operator API shows it (`toLedgerEntryView`). */
export const ledgerEntrySchema = {
  type: 'object',
  description: 'One movement of a wallet: a charge (keyed by request or job id), a top-up or an adjustment.',
  additionalProperties: false,
  required: Object.keys(ledgerEntryProperties),
  properties: ledgerEntryProperties,
} as const;

const ledgerEntryWithUsageProperties = {
  ...entryProperties,
  ...usageProperties,
  ...stateProperties,
} as const;

/** A ledger entry as the console shows it, a charge's token counts included. */
export const ledgerEntryWithUsageSchema = {
  type: 'object',
  required: Object.keys(ledgerEntryWithUsageProperties),
  properties: ledgerEntryWithUsageProperties,
} as const;

/** The JSON of a ledger entry (amounts in Toman, signed: charges are negative). */
export function toLedgerEntryView(entry: LedgerEntry) {
  return {
    id: entry.id,
    kind: entry.kind,
    amount: microsToIrt(entry.amountMicros),
    model: entry.model,
    key_id: entry.keyId,
    reference: entry.reference,
    created_at: entry.createdAt.toISOString(),
    state: entry.state,
  };
}

/** `toLedgerEntryView` with the token counts of a charge (null for other entries). */
export function toLedgerEntryWithUsageView(entry: LedgerEntry) {
  return {
    ...toLedgerEntryView(entry),
    requests: entry.usage?.requests ?? null,
    input_tokens: entry.usage?.inputTokens ?? null,
    output_tokens: entry.usage?.outputTokens ?? null,
  };
}
