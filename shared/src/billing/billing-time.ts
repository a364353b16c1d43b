/**
 * Days (usage rows) and months (spend caps) of the billing zone, computed with Intl only. Days are
 * `YYYY-MM-DD` and months `YYYY-MM` of the Gregorian calendar as seen on a wall clock in the zone.
 */

interface WallClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

// Building a DateTimeFormat costs far more than using one; one per zone is kept.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      calendar: 'gregory',
      numberingSystem: 'latn',
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function wallClock(instant: Date, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const { year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0 } = parts;
  return { year, month, day, hour, minute, second };
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

// Zone offsets are whole minutes, so a billing day never changes within a UTC minute: the last
// answer per zone is kept for its minute (formatToParts is the costliest call of a settlement).
const lastDay = new Map<string, { minute: number; day: string }>();

/** The billing day (`YYYY-MM-DD`) an instant falls on in the zone. */
export function dayOf(instant: Date, timeZone: string): string {
  const minute = Math.floor(instant.getTime() / 60_000);
  const cached = lastDay.get(timeZone);
  if (cached?.minute === minute) return cached.day;
  const clock = wallClock(instant, timeZone);
  const day = `${pad(clock.year, 4)}-${pad(clock.month)}-${pad(clock.day)}`;
  lastDay.set(timeZone, { minute, day });
  return day;
}

/** The billing month (`YYYY-MM`) an instant falls in, in the zone. */
export function monthOf(instant: Date, timeZone: string): string {
  return dayOf(instant, timeZone).slice(0, 7);
}

/** The day `count` calendar days after (or before, when negative) a `YYYY-MM-DD` day. */
export function addDays(day: string, count: number): string {
  const [year, month, date] = parseDay(day);
  return new Date(Date.UTC(year, month - 1, date + count)).toISOString().slice(0, 10);
}

/** The first instant of a `YYYY-MM-DD` day in the zone. */
export function startOfDay(day: string, timeZone: string): Date {
  const [year, month, date] = parseDay(day);
  const midnightUtc = Date.UTC(year, month - 1, date);
  // Two fixpoint steps find local midnight in every zone whose offset does not change at midnight.
  let guess = midnightUtc - offsetMs(new Date(midnightUtc), timeZone);
  guess = midnightUtc - offsetMs(new Date(guess), timeZone);
  if (isFirstInstantOf(guess, day, timeZone)) return new Date(guess);
  return scanForStart(midnightUtc, day, timeZone);
}

/** The first instant of the billing day an instant falls on. */
export function startOfDayAt(instant: Date, timeZone: string): Date {
  return startOfDay(dayOf(instant, timeZone), timeZone);
}

/** The first instant of the billing month an instant falls in (where spend caps start counting). */
export function startOfMonth(instant: Date, timeZone: string): Date {
  return startOfDay(`${monthOf(instant, timeZone)}-01`, timeZone);
}

function parseDay(day: string): [number, number, number] {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (match === null) throw new RangeError(`not a YYYY-MM-DD day: ${day}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** How far the zone's wall clock is ahead of UTC at an instant (whole seconds). */
function offsetMs(instant: Date, timeZone: string): number {
  const c = wallClock(instant, timeZone);
  const asUtc = Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second);
  return asUtc - Math.floor(instant.getTime() / 1000) * 1000;
}

function isFirstInstantOf(ms: number, day: string, timeZone: string): boolean {
  return dayOf(new Date(ms), timeZone) === day && dayOf(new Date(ms - 1), timeZone) !== day;
}

/**
 * Where a zone moves its clock at midnight (the day then starts at 01:00, or midnight happens
 * twice), walk from the earliest possible start (UTC+14) in minutes: offsets change on whole minutes.
 */
function scanForStart(midnightUtc: number, day: string, timeZone: string): Date {
  const minute = 60_000;
  for (let ms = midnightUtc - 14 * 3_600_000; ms <= midnightUtc + 13 * 3_600_000; ms += minute) {
    if (dayOf(new Date(ms), timeZone) === day) return new Date(ms);
  }
  throw new RangeError(`day ${day} does not occur in ${timeZone}`);
}
