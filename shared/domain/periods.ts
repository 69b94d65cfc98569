/**
 * Calendar arithmetic in an application's timezone: period keys for limits (calendar day, ISO
 * week with Monday start, calendar month — docs/decisions.md#16), local wall-clock parts for schedules,
 * and the reverse conversion for admins who type local times.
 */

/** Wall-clock reading of an instant in one timezone. */
export interface LocalParts {
  year: number;
  /** 1-12. */
  month: number;
  day: number;
  /** 0-23. */
  hour: number;
  minute: number;
  second: number;
  /** ISO weekday: 1 = Monday … 7 = Sunday. */
  weekday: number;
}

/**
 * One formatter per timezone: building an `Intl.DateTimeFormat` costs far more than using one,
 * and list asks the same zone once per coupon. Timezones are a small, admin-configured set, so
 * the cache stays small.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** True when `tz` is an IANA timezone name this runtime knows (e.g. `Asia/Kolkata`, `UTC`). */
export function isValidTimeZone(tz: string): boolean {
  if (typeof tz !== 'string' || tz === '') return false;
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/**
 * Wall-clock parts of `now` in `tz`.
 *
 * @throws RangeError when `tz` is not a valid timezone (check with {@link isValidTimeZone} first)
 */
export function localParts(now: Date, tz: string): LocalParts {
  // One request reads the same instant once per coupon (schedules, period keys): the last reading is kept.
  const t = now.getTime();
  if (last && last.t === t && last.tz === tz) return last.parts;
  const parts = readLocalParts(now, tz);
  last = { t, tz, parts };
  return parts;
}
let last: { t: number; tz: string; parts: LocalParts } | undefined;

function readLocalParts(now: Date, tz: string): LocalParts {
  const raw: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(now)) if (p.type !== 'literal') raw[p.type] = Number(p.value);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = raw;
  // Some ICU versions print midnight as 24 even with h23; the modulo keeps 0-23.
  return Object.freeze({ year, month, day, hour: hour % 24, minute, second, weekday: isoWeekday(year, month, day) });
}

/** ISO weekday (1 = Monday … 7 = Sunday) of a calendar date. */
function isoWeekday(year: number, month: number, day: number): number {
  return ((new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7) + 1;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * ISO 8601 week-year and week number of a calendar date. The week belongs to the year of its
 * Thursday, so 2027-01-01 (a Friday) is in 2026-W53 and 2024-12-30 (a Monday) is in 2025-W01.
 */
export function isoWeek(year: number, month: number, day: number): { year: number; week: number } {
  const d = new Date(Date.UTC(year, month - 1, day));
  d.setUTCDate(d.getUTCDate() + 4 - isoWeekday(year, month, day));
  const weekYear = d.getUTCFullYear();
  const dayOfYear = (d.getTime() - Date.UTC(weekYear, 0, 1)) / 86_400_000;
  return { year: weekYear, week: Math.floor(dayOfYear / 7) + 1 };
}

/** The limit period keys of one instant (docs/decisions.md#16). */
export interface PeriodKeys {
  /** Calendar day, `2026-11-23`. */
  day: string;
  /** ISO week-year and week, `2026-W48`. */
  week: string;
  /** Calendar month, `2026-11`. */
  month: string;
}

/**
 * Limit period keys of `now` in `tz`: `{day: '2026-11-23', week: '2026-W48', month: '2026-11'}`.
 *
 * @throws RangeError when `tz` is not a valid timezone
 */
export function periodKeys(now: Date, tz: string): PeriodKeys {
  const p = localParts(now, tz);
  return keysOfDate(p.year, p.month, p.day);
}

/**
 * The local hour of `now` in `tz`, `YYYY-MM-DDTHH` (a campaign's results are counted per local
 * hour: docs/results.md). The two 01:00 hours of a night the clocks go back share one key.
 */
export function hourKey(now: Date, tz: string): string {
  const p = localParts(now, tz);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}`;
}

/** The period keys of a calendar date. */
function keysOfDate(year: number, month: number, day: number): PeriodKeys {
  const w = isoWeek(year, month, day);
  return {
    day: `${pad(year, 4)}-${pad(month)}-${pad(day)}`,
    week: `${pad(w.year, 4)}-W${pad(w.week)}`,
    month: `${pad(year, 4)}-${pad(month)}`,
  };
}

/**
 * The period keys of a calendar day (`2026-11-23` → its ISO week `2026-W48` and month `2026-11`):
 * what {@link periodKeys} gives for any instant of that local day.
 *
 * @throws RangeError when `day` is not a `YYYY-MM-DD` date
 */
export function periodKeysOfDay(day: string): PeriodKeys {
  const t = wallClockAsUtc(`${day}T00:00`);
  if (Number.isNaN(t)) throw new RangeError(`invalid day: ${day}`);
  const d = new Date(t);
  return keysOfDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

const LOCAL_ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** Parses `YYYY-MM-DDTHH:MM[:SS]` into the same wall-clock time read as UTC; NaN when invalid. */
function wallClockAsUtc(localIso: string): number {
  const m = LOCAL_ISO.exec(localIso);
  if (!m) return NaN;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  const t = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(t);
  // Date.UTC rolls 2026-02-30 over to March; a round trip that changes the date means invalid.
  const valid = back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d && h < 24 && mi < 60 && s < 60;
  return valid ? t : NaN;
}

/** Offset of `tz` from UTC at instant `t`, in milliseconds (whole seconds). */
function offsetAt(t: number, tz: string): number {
  const p = localParts(new Date(t), tz);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(t / 1000) * 1000;
}

/**
 * A local wall-clock time in `tz` (`YYYY-MM-DDTHH:MM[:SS]`, no offset) → the UTC instant, for
 * admins entering validity periods in the application's zone.
 *
 * Daylight-saving transitions resolve like JavaScript's own local dates (Temporal's
 * `compatible`): a time repeated when clocks go back is its first occurrence; a time skipped
 * when clocks go forward is moved forward by the gap (02:30 on a spring-forward night in
 * New York is 03:30 EDT).
 *
 * @throws RangeError when `localIso` is not a valid date-time of that shape, or `tz` is invalid
 */
export function zonedLocalToUtc(localIso: string, tz: string): Date {
  const wall = typeof localIso === 'string' ? wallClockAsUtc(localIso) : NaN;
  if (Number.isNaN(wall)) throw new RangeError(`invalid local date-time: ${String(localIso)}`);
  // Offsets a day either side bracket any single transition near this wall-clock time.
  const before = wall - offsetAt(wall - 86_400_000, tz);
  const after = wall - offsetAt(wall + 86_400_000, tz);
  const reads = (t: number) => t + offsetAt(t, tz) === wall;
  if (reads(before)) return new Date(Math.min(before, reads(after) ? after : before));
  if (reads(after)) return new Date(after);
  return new Date(before); // in a gap: the pre-transition offset moves the time forward
}
