const usageRowProperties = {
  date: { type: 'string', format: 'date' },
  model: { type: 'string' },
  requests: { type: 'integer' },
  input_tokens: { type: 'integer' },
  output_tokens: { type: 'integer' },
  cost: { type: 'number' },
} as const;

/** One row of the spec's UsageList, a day × model (`toUsageRow` of shared/src/billing/list-usage.ts). */
export const usageRowSchema = {
  type: 'object',
  required: Object.keys(usageRowProperties),
  properties: usageRowProperties,
} as const;
