/** Day, month, year, hour and minute, and the zone's short name (dateStyle cannot carry a zone name). */
export const WHEN: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
};

/**
 * A moment as a promotion manager reads it: in the application's timezone (not the browser's),
 * with the browser's date and time style, and the zone's short name so nobody has to guess.
 */
export function formatWhen(iso: string | Date, timeZone: string | null | undefined): string {
  return formatIn(iso, timeZone, WHEN);
}

/**
 * An instant in the browser's style with `options`, on `timeZone`'s clock; on the browser's own
 * clock for a zone the browser does not know (formatWhen's zone name then says which).
 */
export function formatIn(iso: string | Date, timeZone: string | null | undefined, options: Intl.DateTimeFormatOptions): string {
  const at = typeof iso === 'string' ? new Date(iso) : iso;
  try {
    return new Intl.DateTimeFormat(undefined, { ...options, timeZone: timeZone ?? undefined }).format(at);
  } catch {
    return new Intl.DateTimeFormat(undefined, options).format(at);
  }
}

/** What `timeZone`'s wall clock shows at `at` (the browser's without a zone), field by field; throws for a zone the browser does not know. */
function wallClock(at: Date, timeZone: string | null | undefined): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string> {
  return Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: timeZone ?? undefined,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  ) as Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string>;
}

/** An instant as a `datetime-local` field's value (`2026-11-26T10:00`) on `timeZone`'s clock (the browser's without one): {@link instantIn} reversed. */
export function localInputIn(iso: string, timeZone: string | null | undefined): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  let parts: ReturnType<typeof wallClock>;
  try {
    parts = wallClock(at, timeZone);
  } catch {
    return localInputIn(iso, null); // a zone the browser does not know: its own clock
  }
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/**
 * A `datetime-local` field's value (`2026-11-26T10:00`) read as a time in `timeZone`, as an ISO
 * instant; '' as nothing. The field has no zone: the page says which one it means.
 */
export function instantIn(local: string, timeZone: string | null | undefined): string | undefined {
  if (!local) return undefined;
  const asUtc = new Date(`${local}:00Z`);
  if (Number.isNaN(asUtc.getTime())) return undefined;
  if (!timeZone) return new Date(local).toISOString();
  // The zone's offset at that moment: what the zone's clock shows at asUtc, minus asUtc; applied
  // twice, it lands on the instant even across a daylight-saving change.
  const offsetAt = (t: Date) => {
    const parts = wallClock(t, timeZone);
    const shown = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
    return shown - t.getTime();
  };
  const first = new Date(asUtc.getTime() - offsetAt(asUtc));
  return new Date(asUtc.getTime() - offsetAt(first)).toISOString();
}

/** A period of a cap in words: "on 2 December 2026", "in week 49 of 2026", "in December 2026", "in 2026". */
export function periodInWords(key: string): string {
  const month = (y: string, m: string) =>
    new Date(Date.UTC(Number(y), Number(m) - 1, 1)).toLocaleDateString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
  let m: RegExpMatchArray | null;
  if ((m = key.match(/^(\d{4})-(\d{2})-(\d{2})$/)))
    return `on ${new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })}`;
  if ((m = key.match(/^(\d{4})-W(\d{2})$/))) return `in week ${Number(m[2])} of ${m[1]}`;
  if ((m = key.match(/^(\d{4})-(\d{2})$/))) return `in ${month(m[1]!, m[2]!)}`;
  return `in ${key}`;
}

/** The calendar day (year, month 1–12, day) `timeZone`'s wall clock shows at `at` (the browser's for a zone it does not know). */
export function calendarDayIn(at: Date, timeZone: string | null | undefined): { year: number; month: number; day: number } {
  let parts: ReturnType<typeof wallClock>;
  try {
    parts = wallClock(at, timeZone);
  } catch {
    parts = wallClock(at, null);
  }
  return { year: Number(parts.year), month: Number(parts.month), day: Number(parts.day) };
}

/** A calendar day in words: "31 December 2026". */
export const dayInWords = (d: { year: number; month: number; day: number }): string =>
  new Date(Date.UTC(d.year, d.month - 1, d.day)).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

/** A day (`2026-12-03`) or local hour (`2026-12-03T14`) of a results series as a Date whose UTC fields are that wall clock. */
function bucketDate(period: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}))?$/.exec(period);
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0))) : null;
}

/**
 * A bucket of a results series as a promotion manager reads it, with the browser's date and time
 * style: a day "Thu, Dec 3" ("Dec 3" when `short`), an hour "14:00" (its day before it unless
 * `short`: "Dec 3, 14:00"). The bucket is already a day or hour of the application's timezone.
 */
export function bucketInWords(period: string, short = false): string {
  const at = bucketDate(period);
  if (!at) return period;
  const hour = period.includes('T');
  const day: Intl.DateTimeFormatOptions = short ? { day: 'numeric', month: 'short' } : { weekday: 'short', day: 'numeric', month: 'short' };
  const time: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit' };
  const options: Intl.DateTimeFormatOptions = hour ? (short ? time : { day: 'numeric', month: 'short', ...time }) : day;
  return new Intl.DateTimeFormat(undefined, { ...options, timeZone: 'UTC' }).format(at);
}

/** A day of the application's calendar (`2026-12-03`) in words, "3 December 2026"; `n` days later with `n`. */
export const localDayInWords = (day: string, n = 0): string => {
  const at = bucketDate(day);
  if (!at) return day;
  at.setUTCDate(at.getUTCDate() + n);
  return dayInWords({ year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() });
};

/** The calendar day `n` days after `day` (`YYYY-MM-DD`, no timezone involved). */
export function addDays(day: string, n: number): string {
  const at = bucketDate(day);
  if (!at) return day;
  at.setUTCDate(at.getUTCDate() + n);
  return at.toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` of the day `timeZone`'s wall clock shows at `at`. */
export function dayKeyIn(at: Date, timeZone: string | null | undefined): string {
  const d = calendarDayIn(at, timeZone);
  return `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

/**
 * A coming moment as a manager says it, on `timeZone`'s clock, seen from `now`: "today at 19:15",
 * "tomorrow at 07:00", "on 11 December 2026 at 19:15" (the time in the browser's style).
 */
export function comingWhenInWords(iso: string, timeZone: string | null | undefined, now: Date): string {
  const at = new Date(iso);
  let time: string;
  try {
    time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', timeZone: timeZone ?? undefined }).format(at);
  } catch {
    return formatWhen(at, null);
  }
  const day = dayKeyIn(at, timeZone);
  const today = dayKeyIn(now, timeZone);
  if (day === today) return `today at ${time}`;
  if (day === addDays(today, 1)) return `tomorrow at ${time}`;
  return `on ${localDayInWords(day)} at ${time}`;
}
