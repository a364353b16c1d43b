import { describe, expect, it } from 'vitest';
import { generateRequestId } from '../../../../api/src/plugins/request-context.ts';

const ID = /^req_([0-9a-z]{9})[A-Za-z0-9_-]{16}$/;

describe('generateRequestId', () => {
  it('gives distinct ids of 96 random bits, across refills of its random pool', () => {
    const ids = Array.from({ length: 2_000 }, () => generateRequestId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(ID);
  });

  it('leads with the time in milliseconds, so ids made later sort after earlier ones', () => {
    const before = Date.now();
    const id = generateRequestId();
    const after = Date.now();
    const millis = Number.parseInt(ID.exec(id)?.[1] ?? '', 36);
    expect(millis).toBeGreaterThanOrEqual(before);
    expect(millis).toBeLessThanOrEqual(after);
    // Fixed width and digits before letters: string order is time order across a digit's roll-over.
    const earlier = `req_${(0xfffffffff).toString(36).padStart(9, '0')}`;
    const later = `req_${(0xfffffffff + 1).toString(36).padStart(9, '0')}`;
    expect(earlier < later).toBe(true);
    expect(generateRequestId() >= id.slice(0, 13)).toBe(true);
  });
});
