import { expect } from 'chai';
import { availability, type Availability } from '../../shared/domain/availability.js';
import type { Campaign } from '../../shared/domain/types.js';
import { makeCampaign } from '../fixtures/campaign.js';

const KOLKATA = 'Asia/Kolkata';
// 2026-03-10 is a Tuesday (ISO day 2).
const at = (iso: string) => new Date(iso);

describe('availability', () => {
  const rows: [string, Partial<Campaign>, string, string, Availability][] = [
    ['the campaign is active with no end', {}, '2026-03-10T06:00:00Z', 'UTC', 'available'],
    ['the campaign is disabled', { status: 'disabled' }, '2026-03-10T06:00:00Z', 'UTC', 'expired'],
    ['the campaign is archived (and active)', { archivedAt: at('2026-03-01T00:00:00Z') }, '2026-03-10T06:00:00Z', 'UTC', 'expired'],
    ['the campaign was unarchived (archivedAt null)', { archivedAt: null }, '2026-03-10T06:00:00Z', 'UTC', 'available'],
    ['now is before validFrom', { validFrom: at('2026-04-01T00:00:00Z') }, '2026-03-10T06:00:00Z', 'UTC', 'not_started'],
    ['now is exactly validFrom (inclusive)', { validFrom: at('2026-03-10T06:00:00Z') }, '2026-03-10T06:00:00Z', 'UTC', 'available'],
    ['now is exactly validUntil (inclusive)', { validUntil: at('2026-03-10T06:00:00Z') }, '2026-03-10T06:00:00Z', 'UTC', 'available'],
    ['now is one millisecond after validUntil', { validUntil: at('2026-03-10T06:00:00Z') }, '2026-03-10T06:00:00.001Z', 'UTC', 'expired'],
    // valid until 23:59 local in Kolkata = 18:29 UTC
    [
      'valid until 23:59 Kolkata and it is 18:30 UTC',
      { validUntil: at('2026-03-10T18:29:00Z') },
      '2026-03-10T18:30:00Z',
      KOLKATA,
      'expired',
    ],
    [
      'valid until 23:59 Kolkata and it is 18:28 UTC',
      { validUntil: at('2026-03-10T18:29:00Z') },
      '2026-03-10T18:28:00Z',
      KOLKATA,
      'available',
    ],
    ['scheduled on Tuesdays and it is Tuesday', { schedule: { daysOfWeek: [2] } }, '2026-03-10T06:00:00Z', KOLKATA, 'available'],
    ['scheduled on weekends and it is Tuesday', { schedule: { daysOfWeek: [6, 7] } }, '2026-03-10T06:00:00Z', KOLKATA, 'outside_schedule'],
    [
      'scheduled on Wednesdays, 19:00 UTC Tuesday (00:30 Wednesday in Kolkata)',
      { schedule: { daysOfWeek: [3] } },
      '2026-03-10T19:00:00Z',
      KOLKATA,
      'available',
    ],
    [
      'scheduled on Wednesdays, 19:00 UTC Tuesday read in UTC',
      { schedule: { daysOfWeek: [3] } },
      '2026-03-10T19:00:00Z',
      'UTC',
      'outside_schedule',
    ],
    [
      'scheduled on Mondays, 02:00 UTC Monday (Sunday 21:00 in New York)',
      { schedule: { daysOfWeek: [1] } },
      '2026-03-09T02:00:00Z',
      'America/New_York',
      'outside_schedule',
    ],
    ['scheduled on Sundays and it is Sunday', { schedule: { daysOfWeek: [7] } }, '2026-03-08T12:00:00Z', 'UTC', 'available'],
    ['an empty day list (every day)', { schedule: { daysOfWeek: [] } }, '2026-03-10T06:00:00Z', 'UTC', 'available'],
    [
      'hours 11:00-12:00 and it is 11:30 local',
      { schedule: { hours: [{ from: '11:00', to: '12:00' }] } },
      '2026-03-10T06:00:00Z',
      KOLKATA,
      'available',
    ],
    [
      'hours 11:00-12:00 and it is exactly 11:00 local (start inclusive)',
      { schedule: { hours: [{ from: '11:00', to: '12:00' }] } },
      '2026-03-10T05:30:00Z',
      KOLKATA,
      'available',
    ],
    [
      'hours 10:00-11:30 and it is exactly 11:30 local (end exclusive)',
      { schedule: { hours: [{ from: '10:00', to: '11:30' }] } },
      '2026-03-10T06:00:00Z',
      KOLKATA,
      'outside_schedule',
    ],
    [
      'hours 23:00-24:00 and it is 23:59 local',
      { schedule: { hours: [{ from: '23:00', to: '24:00' }] } },
      '2026-03-10T18:29:00Z',
      KOLKATA,
      'available',
    ],
    [
      'two ranges and the second matches',
      {
        schedule: {
          hours: [
            { from: '08:00', to: '09:00' },
            { from: '11:00', to: '12:00' },
          ],
        },
      },
      '2026-03-10T06:00:00Z',
      KOLKATA,
      'available',
    ],
    [
      'an overnight range 22:00-02:00 at 01:00',
      { schedule: { hours: [{ from: '22:00', to: '02:00' }] } },
      '2026-03-10T01:00:00Z',
      'UTC',
      'available',
    ],
    [
      'an overnight range 22:00-02:00 at 12:00',
      { schedule: { hours: [{ from: '22:00', to: '02:00' }] } },
      '2026-03-10T12:00:00Z',
      'UTC',
      'outside_schedule',
    ],
    ['a malformed range', { schedule: { hours: [{ from: '9am', to: '25:00' }] } }, '2026-03-10T12:00:00Z', 'UTC', 'outside_schedule'],
    [
      'the right day but the wrong hour',
      { schedule: { daysOfWeek: [2], hours: [{ from: '14:00', to: '15:00' }] } },
      '2026-03-10T06:00:00Z',
      KOLKATA,
      'outside_schedule',
    ],
    [
      'disabled and before validFrom (disabled wins)',
      { status: 'disabled', validFrom: at('2027-01-01T00:00:00Z') },
      '2026-03-10T06:00:00Z',
      'UTC',
      'expired',
    ],
  ];
  for (const [label, campaign, now, tz, expected] of rows) {
    it(`when ${label}, then ${expected}`, () => {
      expect(availability(makeCampaign(campaign), at(now), tz)).to.equal(expected);
    });
  }
});
