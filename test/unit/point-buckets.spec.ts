import { expect } from 'chai';
import fc from 'fast-check';
import {
  addCalendar,
  applyTransition,
  availableAtOf,
  cancelPending,
  credit,
  debit,
  dueTransition,
  endOfPeriod,
  expiringPoints,
  expiryOf,
  nextDue,
  pendingPoints,
  settledAsOf,
  type BucketState,
  type CreditRules,
} from '../../shared/domain/point-buckets.js';

const at = (iso: string) => new Date(iso);
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('point buckets: calendar instants in the wallet timezone', () => {
  const rows: [string, () => Date | null, string][] = [
    ['end of month, UTC', () => endOfPeriod(at('2026-11-25T10:00:00Z'), 'month', 'UTC'), '2026-12-01T00:00:00.000Z'],
    [
      'end of month in Asia/Kolkata (+05:30)',
      () => endOfPeriod(at('2026-11-25T10:00:00Z'), 'month', 'Asia/Kolkata'),
      '2026-11-30T18:30:00.000Z',
    ],
    [
      'an instant that is already December in Kolkata belongs to December',
      () => endOfPeriod(at('2026-11-30T19:00:00Z'), 'month', 'Asia/Kolkata'),
      '2026-12-31T18:30:00.000Z',
    ],
    ['end of quarter (Q4) crosses the year', () => endOfPeriod(at('2026-11-25T10:00:00Z'), 'quarter', 'UTC'), '2027-01-01T00:00:00.000Z'],
    ['end of quarter (Q1)', () => endOfPeriod(at('2026-02-10T10:00:00Z'), 'quarter', 'UTC'), '2026-04-01T00:00:00.000Z'],
    [
      'end of year in America/New_York (EST, -05:00)',
      () => endOfPeriod(at('2026-06-01T12:00:00Z'), 'year', 'America/New_York'),
      '2027-01-01T05:00:00.000Z',
    ],
    [
      'end of March in Europe/Berlin: midnight of 1 April is CEST (+02:00), after the DST change of 29 March',
      () => endOfPeriod(at('2026-03-15T12:00:00Z'), 'month', 'Europe/Berlin'),
      '2026-03-31T22:00:00.000Z',
    ],
    [
      '1 day after 12:00 the day before spring-forward in New York is 12:00 local (23 hours later)',
      () => addCalendar(at('2026-03-07T17:00:00Z'), 1, 'days', 'America/New_York'),
      '2026-03-08T16:00:00.000Z',
    ],
    [
      '1 day after 12:00 the day before fall-back in New York is 12:00 local (25 hours later)',
      () => addCalendar(at('2026-10-31T16:00:00Z'), 1, 'days', 'America/New_York'),
      '2026-11-01T17:00:00.000Z',
    ],
    [
      '1 month after 31 January is the last day of February (clamped)',
      () => addCalendar(at('2026-01-31T10:00:00Z'), 1, 'months', 'UTC'),
      '2026-02-28T10:00:00.000Z',
    ],
    [
      '12 months after 29 February 2028 is 28 February 2029',
      () => addCalendar(at('2028-02-29T10:00:00Z'), 12, 'months', 'UTC'),
      '2029-02-28T10:00:00.000Z',
    ],
    [
      'a time skipped by spring-forward moves forward by the gap (02:30 → 03:30 EDT)',
      () => addCalendar(at('2026-03-07T07:30:00Z'), 1, 'days', 'America/New_York'),
      '2026-03-08T07:30:00.000Z',
    ],
    [
      'expiry "after 30 days"',
      () => expiryOf(at('2026-11-25T10:00:00Z'), { kind: 'after', amount: 30, unit: 'days' }, 'UTC'),
      '2026-12-25T10:00:00.000Z',
    ],
    ['no expiry rule: never', () => expiryOf(at('2026-11-25T10:00:00Z'), null, 'UTC'), 'null'],
    ['pending 14 days', () => availableAtOf(at('2026-11-25T10:00:00Z'), { days: 14 }, 'UTC'), '2026-12-09T10:00:00.000Z'],
    [
      'pending until an instant already past: spendable at once',
      () => availableAtOf(at('2026-11-25T10:00:00Z'), { until: '2026-11-01T00:00:00Z' }, 'UTC'),
      'null',
    ],
  ];
  for (const [name, run, want] of rows)
    it(`when ${name}, then ${want}`, () => {
      expect(String(iso(run()))).to.equal(want);
    });
});

const rules = (r: Partial<CreditRules>): CreditRules => ({ expiry: null, pending: null, timezone: 'UTC', ...r });
const empty: BucketState = { points: 0, buckets: [] };

describe('point buckets: credits, debits, transitions', () => {
  it('when points that never expire and points that do are debited, then the expiring ones go first, soonest first', () => {
    let s = credit(empty, { id: 't1', points: 1000, now: at('2026-01-10T00:00:00Z'), rules: rules({}), version: 0 });
    s = credit(s, {
      id: 't2',
      points: 300,
      now: at('2026-01-10T00:00:00Z'),
      rules: rules({ expiry: { kind: 'end_of', period: 'year' } }),
      version: 1,
    });
    s = credit(s, {
      id: 't3',
      points: 200,
      now: at('2026-01-10T00:00:00Z'),
      rules: rules({ expiry: { kind: 'end_of', period: 'month' } }),
      version: 2,
    });
    expect(s.points).to.equal(1500);
    expect(expiringPoints(s)).to.equal(500);
    s = debit(s, 250);
    expect(s.points).to.equal(1250);
    // 200 of the month's bucket (soonest) went first, then 50 of the year's.
    expect(s.buckets.map((b) => [b.points, iso(b.expiresAt)])).to.deep.equal([[250, '2027-01-01T00:00:00.000Z']]);
    s = debit(s, 1000);
    expect(s.buckets).to.deep.equal([]);
    expect(s.points).to.equal(250);
  });

  it('when two credits expire at the same instant, then they share one bucket', () => {
    const r = rules({ expiry: { kind: 'end_of', period: 'month' } });
    let s = credit(empty, { id: 'a', points: 100, now: at('2026-05-02T00:00:00Z'), rules: r, version: 0 });
    s = credit(s, { id: 'b', points: 50, now: at('2026-05-20T00:00:00Z'), rules: r, version: 1 });
    expect(s.buckets).to.have.length(1);
    expect(s.buckets[0]!.points).to.equal(150);
  });

  it('when a pending credit comes due, then it becomes spendable and its expiry counts from then; a later expiry takes what is left', () => {
    const r = rules({ pending: { days: 14 }, expiry: { kind: 'after', amount: 30, unit: 'days' } });
    let s = credit(empty, { id: 'cb', points: 500, now: at('2026-11-01T00:00:00Z'), rules: r, version: 0 });
    expect([s.points, pendingPoints(s)]).to.deep.equal([0, 500]);
    expect(iso(nextDue(s))).to.equal('2026-11-15T00:00:00.000Z');
    expect(dueTransition(s, at('2026-11-14T23:59:59Z'))).to.equal(null);
    const t = dueTransition(s, at('2026-11-15T00:00:00Z'))!;
    expect(t.kind).to.equal('available');
    s = applyTransition(s, t, 1);
    expect([s.points, pendingPoints(s), iso(nextDue(s))]).to.deep.equal([500, 0, '2026-12-15T00:00:00.000Z']);
    s = debit(s, 120);
    const e = dueTransition(s, at('2027-01-01T00:00:00Z'))!;
    expect([e.kind, e.bucket.points]).to.deep.equal(['expired', 380]);
    s = applyTransition(s, e, 3);
    expect(s).to.deep.equal({ points: 0, buckets: [] });
  });

  it('when a pending credit is cancelled, then the spendable points do not move', () => {
    let s = credit(
      { points: 70, buckets: [] },
      { id: 'cb', points: 500, now: at('2026-11-01T00:00:00Z'), rules: rules({ pending: { days: 3 } }), version: 4 },
    );
    s = cancelPending(s, 'cb');
    expect(s).to.deep.equal({ points: 70, buckets: [] });
  });

  it('when random credits, debits and clock jumps are applied, then the invariants hold and settling all at once equals settling step by step', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('credit' as const), points: fc.integer({ min: 1, max: 5000 }), rule: fc.integer({ min: 0, max: 4 }) }),
      fc.record({ kind: fc.constant('debit' as const), points: fc.integer({ min: 1, max: 5000 }) }),
      fc.record({ kind: fc.constant('wait' as const), hours: fc.integer({ min: 1, max: 24 * 40 }) }),
    );
    const ruleOf = (i: number): CreditRules =>
      [
        rules({}),
        rules({ expiry: { kind: 'after', amount: 10, unit: 'days' } }),
        rules({ expiry: { kind: 'end_of', period: 'month' }, timezone: 'Europe/Berlin' }),
        rules({ pending: { days: 3 } }),
        rules({ pending: { days: 5 }, expiry: { kind: 'after', amount: 1, unit: 'months' }, timezone: 'America/New_York' }),
      ][i]!;
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let s: BucketState = empty;
        let now = at('2026-10-20T12:00:00Z').getTime();
        let v = 0;
        let everCredited = 0;
        let spentOrExpired = 0;
        for (const o of ops) {
          if (o.kind === 'wait') {
            const jumped = settledAsOf(s, new Date(now + o.hours * 3_600_000));
            // step by step, one transition at a time, equals the jump
            let step = s;
            for (
              let t = dueTransition(step, new Date(now + o.hours * 3_600_000));
              t;
              t = dueTransition(step, new Date(now + o.hours * 3_600_000))
            )
              step = applyTransition(step, t, v++);
            expect(step.points).to.equal(jumped.points);
            spentOrExpired += s.points + pendingPoints(s) - (step.points + pendingPoints(step));
            s = step;
            now += o.hours * 3_600_000;
          } else {
            s = settledAsOf(s, new Date(now));
            if (o.kind === 'credit') {
              s = credit(s, { id: `c${v}`, points: o.points, now: new Date(now), rules: ruleOf(o.rule), version: v++ });
              everCredited += o.points;
            } else if (o.points <= s.points) {
              s = debit(s, o.points);
              spentOrExpired += o.points;
            }
          }
          // invariants
          expect(s.points).to.be.at.least(expiringPoints(s));
          expect(s.buckets.every((b) => b.points > 0)).to.equal(true);
          expect(s.buckets.every((b) => b.availableAt !== null || b.expiresAt !== null)).to.equal(true);
          expect(s.points + pendingPoints(s) + spentOrExpired).to.equal(everCredited);
        }
      }),
      { numRuns: 300 },
    );
  });
});
