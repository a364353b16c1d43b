import { describe, expect, it } from 'vitest';
import {
  addDays,
  dayOf,
  monthOf,
  startOfDay,
  startOfDayAt,
  startOfMonth,
} from '../../../../shared/src/billing/billing-time.ts';

const TEHRAN = 'Asia/Tehran';
const NEW_YORK = 'America/New_York';
const at = (iso: string) => new Date(iso);

describe('billing days and months in Asia/Tehran (UTC+03:30)', () => {
  it('changes day at the exact millisecond of Tehran midnight, back and forth (cached per minute)', () => {
    expect(dayOf(at('2026-05-10T20:29:59.999Z'), TEHRAN)).toBe('2026-05-10');
    expect(dayOf(at('2026-05-10T20:30:00.000Z'), TEHRAN)).toBe('2026-05-11');
    expect(dayOf(at('2026-05-10T20:29:59.999Z'), TEHRAN)).toBe('2026-05-10');
    expect(dayOf(at('2026-05-10T20:30:00.000Z'), 'UTC')).toBe('2026-05-10');
    expect(dayOf(at('2026-05-10T20:30:59.000Z'), TEHRAN)).toBe('2026-05-11');
  });

  it('puts 20:29 UTC and 20:31 UTC on different Tehran days', () => {
    expect(dayOf(at('2026-05-10T20:29:00Z'), TEHRAN)).toBe('2026-05-10');
    expect(dayOf(at('2026-05-10T20:31:00Z'), TEHRAN)).toBe('2026-05-11');
    expect(dayOf(at('2026-05-10T20:29:59.999Z'), TEHRAN)).toBe('2026-05-10');
    expect(dayOf(at('2026-05-10T20:30:00Z'), TEHRAN)).toBe('2026-05-11');
  });

  it('starts a month at Tehran midnight', () => {
    expect(monthOf(at('2026-01-31T20:29:00Z'), TEHRAN)).toBe('2026-01');
    expect(monthOf(at('2026-01-31T20:31:00Z'), TEHRAN)).toBe('2026-02');
    expect(monthOf(at('2025-12-31T20:31:00Z'), TEHRAN)).toBe('2026-01');
    expect(startOfMonth(at('2026-02-15T12:00:00Z'), TEHRAN).toISOString()).toBe('2026-01-31T20:30:00.000Z');
    expect(startOfMonth(at('2026-01-31T20:29:00Z'), TEHRAN).toISOString()).toBe('2025-12-31T20:30:00.000Z');
  });

  it('finds the first instant of a day', () => {
    expect(startOfDay('2026-03-21', TEHRAN).toISOString()).toBe('2026-03-20T20:30:00.000Z');
    expect(startOfDayAt(at('2026-05-10T20:31:00Z'), TEHRAN).toISOString()).toBe('2026-05-10T20:30:00.000Z');
  });

  it('handles the days when Tehran still moved its clocks at midnight (before 2022)', () => {
    // 2021-03-22 00:00 +03:30 became 01:00 +04:30; 2021-09-22 00:00 +04:30 went back to 23:00.
    expect(startOfDay('2021-03-22', TEHRAN).toISOString()).toBe('2021-03-21T20:30:00.000Z');
    expect(startOfDay('2021-09-21', TEHRAN).toISOString()).toBe('2021-09-20T19:30:00.000Z');
    expect(startOfDay('2021-09-22', TEHRAN).toISOString()).toBe('2021-09-21T20:30:00.000Z');
  });
});

describe('billing days in a zone with daylight saving time (America/New_York)', () => {
  it('follows the offset change', () => {
    expect(startOfDay('2026-03-08', NEW_YORK).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(startOfDay('2026-03-09', NEW_YORK).toISOString()).toBe('2026-03-09T04:00:00.000Z');
    expect(dayOf(at('2026-07-01T03:59:00Z'), NEW_YORK)).toBe('2026-06-30');
    expect(monthOf(at('2026-07-01T03:59:00Z'), NEW_YORK)).toBe('2026-06');
    expect(monthOf(at('2026-07-01T04:01:00Z'), NEW_YORK)).toBe('2026-07');
  });

  it('finds the start of a day whose midnight does not exist (America/Santiago)', () => {
    // 2026-09-06: clocks jump from 24:00 to 01:00, so the day begins at 01:00 -03.
    const start = startOfDay('2026-09-06', 'America/Santiago');
    expect(dayOf(start, 'America/Santiago')).toBe('2026-09-06');
    expect(dayOf(new Date(start.getTime() - 1), 'America/Santiago')).toBe('2026-09-05');
  });
});

describe('addDays', () => {
  it('crosses month and year ends and leap days', () => {
    expect(addDays('2026-01-31', 1)).toBe('2026-02-01');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(addDays('2028-03-01', -1)).toBe('2028-02-29');
    expect(addDays('2026-03-21', -29)).toBe('2026-02-20');
  });

  it('refuses a malformed day', () => {
    expect(() => addDays('2026-1-1', 1)).toThrow(RangeError);
  });
});
