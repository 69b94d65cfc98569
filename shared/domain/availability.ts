/**
 * Whether a campaign can be used at an instant: status, validity period, then schedule, the
 * schedule read in the application's timezone (docs/decisions.md#16).
 */
import { localParts } from './periods.js';
import type { Campaign, Schedule } from './types.js';

/**
 * - `not_started`: before `validFrom` (list omits it, docs/decisions.md#13);
 * - `expired`: after `validUntil`, or the campaign is disabled or archived (list omits it);
 * - `outside_schedule`: inside the period but not on a scheduled day or hour (list shows it as
 *   not applicable);
 * - `available`: usable now.
 */
export type Availability = 'not_started' | 'expired' | 'outside_schedule' | 'available';

/**
 * Availability of `campaign` at `now`, schedules evaluated in timezone `tz`.
 *
 * - The period is inclusive at both ends: `validFrom <= now <= validUntil`; `validUntil` null
 *   means no end.
 * - `schedule.daysOfWeek` uses ISO days (1 = Monday … 7 = Sunday); missing or empty = every day.
 * - `schedule.hours` ranges are `HH:MM`–`HH:MM`, start inclusive, end exclusive, `24:00`
 *   allowed as an end; missing or empty = all day. A range whose end is not after its start
 *   wraps past midnight (`22:00`–`02:00`); a malformed range never matches.
 *
 * @throws RangeError only when the campaign has a schedule and `tz` is not a valid timezone
 */
export function availability(
  campaign: Pick<Campaign, 'status' | 'archivedAt' | 'validFrom' | 'validUntil' | 'schedule'>,
  now: Date,
  tz: string,
): Availability {
  if (campaign.status !== 'active' || campaign.archivedAt) return 'expired';
  const t = now.getTime();
  if (t < campaign.validFrom.getTime()) return 'not_started';
  if (campaign.validUntil && t > campaign.validUntil.getTime()) return 'expired';
  return withinSchedule(campaign.schedule, now, tz) ? 'available' : 'outside_schedule';
}

function withinSchedule(schedule: Schedule | null, now: Date, tz: string): boolean {
  const days = schedule?.daysOfWeek ?? [];
  const hours = schedule?.hours ?? [];
  if (days.length === 0 && hours.length === 0) return true;
  const local = localParts(now, tz);
  if (days.length > 0 && !days.includes(local.weekday)) return false;
  if (hours.length === 0) return true;
  const minute = local.hour * 60 + local.minute;
  return hours.some((range) => inRange(minute, range));
}

/** Minutes since midnight of `HH:MM` (00:00 to 24:00); NaN when malformed. */
function minutesOf(hhmm: string): number {
  const m = /^(\d{2}):(\d{2})$/.exec(typeof hhmm === 'string' ? hhmm : '');
  if (!m) return NaN;
  const total = Number(m[1]) * 60 + Number(m[2]);
  return Number(m[2]) < 60 && total <= 24 * 60 ? total : NaN;
}

function inRange(minute: number, range: { from: string; to: string }): boolean {
  const from = minutesOf(range.from);
  const to = minutesOf(range.to);
  if (Number.isNaN(from) || Number.isNaN(to)) return false;
  return from < to ? minute >= from && minute < to : minute >= from || minute < to;
}
