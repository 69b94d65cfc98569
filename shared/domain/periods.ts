/**
 * Calendar arithmetic in an application's timezone: period keys for limits (calendar day, ISO
 * week with Monday start, calendar month — decision 16) and local wall-clock parts for schedules.
 */
export interface LocalParts {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** ISO weekday: 1 = Monday … 7 = Sunday. */
  weekday: number;
}

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

export function isValidTimeZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/** The last answer per timezone: list asks the same instant once per coupon. */
const lastParts = new Map<string, { at: number; parts: LocalParts }>();

/** Wall-clock parts of `now` in `tz`. */
export function localParts(now: Date, tz: string): LocalParts {
  const hit = lastParts.get(tz);
  if (hit && hit.at === now.getTime()) return hit.parts;
  const parts = computeLocalParts(now, tz);
  lastParts.set(tz, { at: now.getTime(), parts });
  return parts;
}

function computeLocalParts(now: Date, tz: string): LocalParts {
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(now)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const { year, month, day, hour, minute, second } = parts as Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number>;
  const weekday = ((new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7) + 1;
  return { year, month, day, hour: hour % 24, minute, second, weekday };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** ISO 8601 week-year and week of a calendar date. */
export function isoWeek(year: number, month: number, day: number): { year: number; week: number } {
  const d = new Date(Date.UTC(year, month - 1, day));
  const isoDay = d.getUTCDay() || 7;
  d.setUTCDate(d.getUTCDate() + 4 - isoDay); // the Thursday of this week decides the week-year
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  return { year: d.getUTCFullYear(), week: Math.ceil(((d.getTime() - yearStart) / 86_400_000 + 1) / 7) };
}

/** Limit period keys of `now` in `tz`: `{day:'2026-11-23', week:'2026-W48', month:'2026-11'}`. */
export function periodKeys(now: Date, tz: string): { day: string; week: string; month: string } {
  const p = localParts(now, tz);
  const w = isoWeek(p.year, p.month, p.day);
  return { day: `${p.year}-${pad(p.month)}-${pad(p.day)}`, week: `${w.year}-W${pad(w.week)}`, month: `${p.year}-${pad(p.month)}` };
}

/**
 * A local wall-clock time (`YYYY-MM-DDTHH:MM[:SS]`, no offset) in `tz` → the UTC instant. For
 * admins entering validity periods in the application's zone. In a DST gap the later offset wins.
 */
export function zonedLocalToUtc(localIso: string, tz: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(localIso);
  if (!m) throw new Error(`invalid local date-time ${localIso}`);
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  // Two passes: the offset at the guess, then at the corrected instant.
  let guess = asUtc;
  for (let i = 0; i < 2; i++) {
    const p = localParts(new Date(guess), tz);
    const local = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
    guess = asUtc - (local - guess);
  }
  return new Date(guess);
}
