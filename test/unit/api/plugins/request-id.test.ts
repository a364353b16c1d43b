import { describe, expect, it } from 'vitest';
import { generateRequestId } from '../../../../api/src/plugins/request-context.ts';

describe('generateRequestId', () => {
  it('gives distinct ids of 96 random bits, across refills of its random pool', () => {
    const ids = Array.from({ length: 2_000 }, () => generateRequestId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
  });
});
