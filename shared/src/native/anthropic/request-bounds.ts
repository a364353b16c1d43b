/**
 * The bounds of Anthropic's Messages requests (field-bounds.ts): `max_tokens` from 1 to what the
 * model can produce, and the sampling ranges `/v1` takes.
 */
import type { CatalogueModel } from '../../catalogue/catalogue.ts';
import { type CheckedOutputBound, checkedNumbers } from '../field-bounds.ts';
import { outputTokens, TEMPERATURE, TOP_P } from '../request-ranges.ts';

/** Checks a Messages body; what its hold is sized from. */
export function checkMessagesBounds(
  model: CatalogueModel,
  body: Readonly<Record<string, unknown>>,
): CheckedOutputBound {
  const values = checkedNumbers(body, {
    max_tokens: outputTokens(model),
    temperature: TEMPERATURE,
    top_p: TOP_P,
  });
  return { maxOutputTokens: values.max_tokens, choices: 1 };
}
