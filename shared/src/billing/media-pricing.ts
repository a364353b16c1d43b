import type { ModelPricing } from '../catalogue/catalogue.ts';
import { priceMicros } from './money.ts';

/**
 * The exact cost of a media request in µIRT, from the quantity its pricing unit counts: images
 * (`image`), characters of input (`1K_chars`), seconds of audio (`minute`) or of video (`second`).
 */
export function mediaCostMicros(pricing: ModelPricing, quantity: number): bigint {
  switch (pricing.unit) {
    case 'image':
      return priceMicros([{ quantity, unitPriceIrt: pricing.input }]);
    case '1K_chars':
      return priceMicros([{ quantity, unitPriceIrt: pricing.input, perUnits: 1_000 }]);
    case 'minute':
      // Seconds measured to the millisecond, priced per minute.
      return priceMicros([{ quantity: quantity.toFixed(3), unitPriceIrt: pricing.input, perUnits: 60 }]);
    case 'second':
      return priceMicros([{ quantity: quantity.toFixed(3), unitPriceIrt: pricing.input }]);
    case '1M_tokens':
      throw new RangeError('token-priced models are not media models');
  }
}
