import { expect } from 'chai';
import { isoWeek, isValidTimeZone, localParts, periodKeys, periodKeysOfDay, zonedLocalToUtc } from '../../shared/domain/periods.js';

describe('periods: periodKeys', () => {
  const rows: [string, string, string, { day: string; week: string; month: string }][] = [
    ['a Monday in November', '2026-11-23T10:00:00Z', 'UTC', { day: '2026-11-23', week: '2026-W48', month: '2026-11' }],
    [
      '2026-12-31 (a Thursday: its week is 2026-W53)',
      '2026-12-31T12:00:00Z',
      'UTC',
      { day: '2026-12-31', week: '2026-W53', month: '2026-12' },
    ],
    ['2027-01-01 (a Friday: still in 2026-W53)', '2027-01-01T12:00:00Z', 'UTC', { day: '2027-01-01', week: '2026-W53', month: '2027-01' }],
    [
      '2024-12-30 (a Monday: the first week of 2025)',
      '2024-12-30T12:00:00Z',
      'UTC',
      { day: '2024-12-30', week: '2025-W01', month: '2024-12' },
    ],
    ['2021-01-03 (a Sunday: last week of 2020)', '2021-01-03T12:00:00Z', 'UTC', { day: '2021-01-03', week: '2020-W53', month: '2021-01' }],
    [
      '18:30 UTC on 31 Dec in Asia/Kolkata (already 1 Jan locally)',
      '2026-12-31T18:30:00Z',
      'Asia/Kolkata',
      { day: '2027-01-01', week: '2026-W53', month: '2027-01' },
    ],
    [
      'a Sunday 20:00 UTC that is Monday in Asia/Tokyo (new ISO week)',
      '2026-11-22T20:00:00Z',
      'Asia/Tokyo',
      { day: '2026-11-23', week: '2026-W48', month: '2026-11' },
    ],
    [
      '03:00 UTC on 1 Dec that is still November in America/Los_Angeles',
      '2026-12-01T03:00:00Z',
      'America/Los_Angeles',
      { day: '2026-11-30', week: '2026-W49', month: '2026-11' },
    ],
  ];
  for (const [label, iso, tz, keys] of rows) {
    it(`when it is ${label}, then the keys are ${keys.day} / ${keys.week} / ${keys.month}`, () => {
      expect(periodKeys(new Date(iso), tz)).to.deep.equal(keys);
    });
  }
  it('when only the day is known (a counter lane), then its week and month are those periodKeys gives for that day', () => {
    for (const [, , , keys] of rows) expect(periodKeysOfDay(keys.day)).to.deep.equal(keys);
    for (const bad of ['2026-02-30', '2026-11-5', 'today', '']) expect(() => periodKeysOfDay(bad), bad).to.throw(RangeError);
  });
});

describe('periods: isoWeek', () => {
  const rows: [[number, number, number], { year: number; week: number }][] = [
    [[2026, 1, 1], { year: 2026, week: 1 }], // a Thursday
    [[2025, 12, 29], { year: 2026, week: 1 }], // the Monday of that week
    [[2020, 12, 31], { year: 2020, week: 53 }],
    [[2027, 1, 4], { year: 2027, week: 1 }],
  ];
  for (const [[y, m, d], week] of rows) {
    it(`when the date is ${y}-${m}-${d}, then ISO week ${week.year}-W${week.week}`, () => expect(isoWeek(y, m, d)).to.deep.equal(week));
  }
});

describe('periods: localParts and isValidTimeZone', () => {
  it('when 18:29 UTC is read in Asia/Kolkata, then it is 23:59 local on the same day', () => {
    expect(localParts(new Date('2026-03-10T18:29:00Z'), 'Asia/Kolkata')).to.deep.equal({
      year: 2026,
      month: 3,
      day: 10,
      hour: 23,
      minute: 59,
      second: 0,
      weekday: 2,
    });
  });
  it('when midnight UTC is read in UTC, then the hour is 0 (never 24)', () => {
    expect(localParts(new Date('2026-03-09T00:00:00Z'), 'UTC')).to.include({ hour: 0, weekday: 1 });
  });
  const zones: [string, boolean][] = [
    ['Asia/Kolkata', true],
    ['UTC', true],
    ['America/New_York', true],
    ['Mars/Olympus', false],
    ['', false],
    ['not a zone', false],
  ];
  for (const [tz, valid] of zones) {
    it(`when the timezone is "${tz}", then valid is ${valid}`, () => expect(isValidTimeZone(tz)).to.equal(valid));
  }
  it('when localParts gets an unknown timezone, then it throws a RangeError', () => {
    expect(() => localParts(new Date(), 'Mars/Olympus')).to.throw(RangeError);
  });
});

describe('periods: zonedLocalToUtc', () => {
  const rows: [string, string, string, string][] = [
    ['23:59 in Asia/Kolkata', '2026-03-10T23:59', 'Asia/Kolkata', '2026-03-10T18:29:00.000Z'],
    ['with seconds', '2026-03-10T23:59:30', 'Asia/Kolkata', '2026-03-10T18:29:30.000Z'],
    ['midnight in UTC', '2026-01-01T00:00', 'UTC', '2026-01-01T00:00:00.000Z'],
    ['summer in New York (EDT)', '2026-07-01T12:00', 'America/New_York', '2026-07-01T16:00:00.000Z'],
    ['winter in New York (EST)', '2026-01-15T12:00', 'America/New_York', '2026-01-15T17:00:00.000Z'],
    ['a time skipped by spring-forward (moved forward)', '2026-03-08T02:30', 'America/New_York', '2026-03-08T07:30:00.000Z'],
    ['a time repeated by fall-back (first occurrence)', '2026-11-01T01:30', 'America/New_York', '2026-11-01T05:30:00.000Z'],
    ['a half-hour offset behind UTC', '2026-06-01T00:00', 'America/St_Johns', '2026-06-01T02:30:00.000Z'],
  ];
  for (const [label, local, tz, utc] of rows) {
    it(`when ${label} is entered (${local}), then ${utc}`, () => expect(zonedLocalToUtc(local, tz).toISOString()).to.equal(utc));
  }
  const invalid = [
    '2026-02-30T10:00',
    '2026-13-01T10:00',
    '2026-01-01T24:00',
    '2026-01-01T10:60',
    '2026-01-01 10:00',
    '2026-01-01T10:00Z',
    '',
  ];
  for (const local of invalid) {
    it(`when "${local}" is entered, then a RangeError`, () => expect(() => zonedLocalToUtc(local, 'UTC')).to.throw(RangeError));
  }
});
