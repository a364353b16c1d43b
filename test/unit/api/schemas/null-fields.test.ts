import { describe, expect, it } from 'vitest';
import { NULLABLE_IMAGE_FIELDS } from '../../../../api/src/schemas/media-request.schema.ts';
import { nullableFields } from '../../../../api/src/schemas/null-fields.ts';

describe('nullableFields', () => {
  it('names the fields whose type lists null or whose enum holds it, and no other', () => {
    const schema = {
      properties: {
        a: { type: ['string', 'null'] },
        b: { enum: ['x', null] },
        c: { type: 'string' },
        d: { enum: ['x', 'y'] },
        e: { const: 'x' },
      },
    };
    expect(nullableFields(schema)).toEqual(['a', 'b']);
  });

  it("gives the image request's nullable fields, which the route drops when null", () => {
    expect(NULLABLE_IMAGE_FIELDS).toEqual(['model', 'n', 'size', 'quality', 'background', 'response_format']);
  });
});
