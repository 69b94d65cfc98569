/** Whether a campaign is available at `now` in the application's timezone (validity + schedule). */
import { localParts } from './periods.js';
import type { Campaign } from './types.js';

export type Availability = 'not_started' | 'expired' | 'outside_schedule' | 'available';

const minutes = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
};

export function availability(
  campaign: Pick<Campaign, 'status' | 'validFrom' | 'validUntil' | 'schedule'>,
  now: Date,
  tz: string,
): Availability {
  if (campaign.status !== 'active') return 'expired';
  if (now.getTime() < campaign.validFrom.getTime()) return 'not_started';
  if (campaign.validUntil && now.getTime() > campaign.validUntil.getTime()) return 'expired';
  const schedule = campaign.schedule;
  if (!schedule) return 'available';
  const local = localParts(now, tz);
  if (schedule.daysOfWeek?.length && !schedule.daysOfWeek.includes(local.weekday)) return 'outside_schedule';
  if (schedule.hours?.length) {
    const t = local.hour * 60 + local.minute;
    if (!schedule.hours.some((r) => t >= minutes(r.from) && t < minutes(r.to))) return 'outside_schedule';
  }
  return 'available';
}
