const usageRowProperties = {
  date: { type: 'string', format: 'date', description: 'The billing day (in the billing time zone).' },
  model: { type: 'string' },
  requests: { type: 'integer' },
  input_tokens: { type: 'integer' },
  output_tokens: { type: 'integer' },
  cost: { type: 'number' },
} as const;

/** One row of the spec's UsageList, a day × model (`toUsageRow` of shared/src/billing/list-usage.ts). */
export const usageRowSchema = {
  type: 'object',
  description: 'A billing day × model: its requests, tokens and cost in Toman.',
  additionalProperties: false,
  required: Object.keys(usageRowProperties),
  properties: usageRowProperties,
} as const;
