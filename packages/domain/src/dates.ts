/** Calendar helpers on `YYYY-MM-DD` strings; all arithmetic in UTC so that no time zone shifts a day. */

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The range of every date the service takes: older or later ones are input errors, not data. */
export const FIRST_DATE = '1900-01-01';
export const LAST_DATE = '2100-12-31';

/** True for a real calendar date (`2026-02-30` is not) between FIRST_DATE and LAST_DATE. */
export function isValidDate(value: string): boolean {
  const m = DATE_PATTERN.exec(value);
  if (!m || value < FIRST_DATE || value > LAST_DATE) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export function addYears(date: string, years: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  // 29 February in a year without it becomes 28 February.
  const last = new Date(Date.UTC(y + years, m, 0)).getUTCDate();
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  return `${pad(y + years, 4)}-${pad(m, 2)}-${pad(Math.min(d, last), 2)}`;
}

/** The Monday of the ISO week that contains `date`. */
export function weekStart(date: string): string {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return addDays(date, -((day + 6) % 7));
}

/** The Monday of a week the service plans: all seven of its days within LAST_DATE, so the last is 2100-12-20. */
export function isWeekStart(date: string): boolean {
  return isValidDate(date) && new Date(`${date}T00:00:00Z`).getUTCDay() === 1 && addDays(date, 6) <= LAST_DATE;
}

/** Why a date is not a week start, as a validation message. */
export const WEEK_START_RULE = 'must be a Monday (YYYY-MM-DD) of a week that ends by 2100-12-31';

/** True when the runtime knows the IANA time zone `name` (`Europe/Kyiv`, `Pacific/Kiritimati`, `UTC`). */
export function isTimeZone(name: string): boolean {
  try {
    dayFormat(name);
    return true;
  } catch {
    return false;
  }
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();
/** A formatter of calendar dates in `zone` (`en-CA` writes `YYYY-MM-DD`), made once per zone. */
function dayFormat(zone: string): Intl.DateTimeFormat {
  let format = dayFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(zone, format);
  }
  return format;
}

/** "Today" for someone in `zone` at the instant `now`: the calendar date on their clock. */
export function todayIn(zone: string, now: Date): string {
  return dayFormat(zone).format(now);
}

/** The first instant of the calendar day `date` in `zone` (later than midnight where a clock change skips it). */
export function startOfDayIn(zone: string, date: string): Date {
  const midnightUtc = Date.parse(`${date}T00:00:00Z`);
  // The zone's offset is read at two guesses: the second is right unless midnight itself is skipped.
  let start = midnightUtc;
  for (let i = 0; i < 2; i++) start = midnightUtc - offsetMs(zone, new Date(start));
  // Offsets are whole quarter hours: where midnight does not exist, the day starts at the first quarter that does.
  while (todayIn(zone, new Date(start)) < date) start += 15 * 60_000;
  return new Date(start);
}

const clockFormats = new Map<string, Intl.DateTimeFormat>();
/** How far the wall clock in `zone` is ahead of UTC at `instant`, in milliseconds. */
function offsetMs(zone: string, instant: Date): number {
  let format = clockFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    clockFormats.set(zone, format);
  }
  const part = Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, Number(p.value)]));
  const wall = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  return wall - Math.floor(instant.getTime() / 1000) * 1000;
}
