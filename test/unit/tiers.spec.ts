import { expect } from 'chai';
import {
  earn,
  earnedInWindow,
  reassess,
  release,
  tierAsOf,
  tierDue,
  tierProgress,
  type TierContext,
  type TierState,
} from '../../shared/domain/tiers.js';

const levels = [
  { name: 'Member', minHundredths: 0, multiplier: 100 },
  { name: 'Silver', minHundredths: 100_000, multiplier: 125 },
  { name: 'Gold', minHundredths: 500_000, multiplier: 150 },
];
const yearly: TierContext = { program: { basis: { kind: 'calendar', period: 'year' }, levels }, timezone: 'Europe/Berlin' };
const rolling3: TierContext = { program: { basis: { kind: 'rolling', months: 3 }, levels }, timezone: 'America/New_York' };
const at = (iso: string) => new Date(iso);

describe('tiers (shared/domain/tiers.ts)', () => {
  it('when a credit reaches a level, then the customer is upgraded at once and holds it until the period after next is assessed', () => {
    const first = earn(yearly, undefined, 120_000, at('2026-03-10T10:00:00Z')).state;
    expect(first.level).to.equal('Silver');
    expect(first.held, 'nothing held yet: the level comes from the window').to.equal('Member');
    expect(first.until.toISOString(), 'the end of 2026 in Berlin').to.equal('2026-12-31T23:00:00.000Z');
    expect(tierDue(yearly, first)?.toISOString()).to.equal('2026-12-31T23:00:00.000Z');

    const in2027 = reassess(yearly, first)!;
    expect(in2027.held, '2026 reached Silver: kept through 2027').to.equal('Silver');
    expect(in2027.level).to.equal('Silver');
    expect(in2027.until.toISOString()).to.equal('2027-12-31T23:00:00.000Z');
    expect(earnedInWindow(yearly.program.basis, in2027.earned, at('2027-01-02T00:00:00Z'), 'Europe/Berlin')).to.equal(0);

    const in2028 = reassess(yearly, in2027)!;
    expect(in2028.level, 'nothing earned in 2027: down to the first level').to.equal('Member');
    expect(tierDue(yearly, in2028), 'at the first level nothing can change: no re-assessment due').to.equal(null);
  });

  it('when a year is assessed, then an instant before local midnight counts in the old year and after it in the new one', () => {
    // 23:30 on 31 December in Berlin is 22:30 UTC: still 2026.
    const late = earn(yearly, undefined, 600_000, at('2026-12-31T22:30:00Z')).state;
    expect(late.level).to.equal('Gold');
    expect(reassess(yearly, late)!.held).to.equal('Gold');
    // 00:30 on 1 January in Berlin (23:30 UTC on the 31st): 2027 — the 2026 assessment sees nothing.
    const early = earn(yearly, undefined, 600_000, at('2026-12-31T23:30:00Z')).state;
    expect(early.until.toISOString()).to.equal('2027-12-31T23:00:00.000Z');
  });

  it('when the window rolls, then the months that left it stop counting and a downgrade comes at a month end (New York, across DST)', () => {
    let s: TierState | undefined = undefined;
    s = earn(rolling3, s, 300_000, at('2026-01-15T12:00:00Z')).state; // January
    s = earn(rolling3, s, 250_000, at('2026-02-15T12:00:00Z')).state; // February: 5500 in the window
    expect(s.level).to.equal('Gold');
    expect(s.until.toISOString(), 'end of February in New York (EST)').to.equal('2026-03-01T05:00:00.000Z');
    s = reassess(rolling3, s)!; // March: window Jan-Mar holds 5500
    expect(s.held).to.equal('Gold');
    expect(s.until.toISOString(), 'end of March in New York (EDT since 8 March)').to.equal('2026-04-01T04:00:00.000Z');
    s = reassess(rolling3, s)!; // April: window Feb-Apr; held from Jan-Mar = 5500
    expect(s.held).to.equal('Gold');
    s = reassess(rolling3, s)!; // May: held from Feb-Apr = 2500
    expect(s.held, 'January left the window').to.equal('Silver');
    expect(
      s.earned.map((e) => e.month),
      'months no window needs from May (Mar-May) are dropped',
    ).to.deep.equal([]);
    s = reassess(rolling3, s)!; // June: held from Mar-May = 0
    expect(s.level).to.equal('Member');
  });

  it('when a return takes back what an order counted, then the month gets it back and the level follows, never below what is held', () => {
    const now = at('2026-05-10T10:00:00Z');
    const earned = earn(yearly, undefined, 520_000, now);
    expect(earned.state.level).to.equal('Gold');
    const back = release(yearly, earned.state, earned.counted, 100_000, now);
    expect(back.released).to.deep.equal({ month: '2026-05', hundredths: 100_000 });
    expect(back.state.level).to.equal('Silver');
    const held: TierState = { ...back.state, held: 'Gold' };
    expect(release(yearly, held, earned.counted, 420_000, now).state.level, 'held Gold stays').to.equal('Gold');
    const gone = { ...back.state, earned: [] };
    expect(release(yearly, gone, earned.counted, 100_000, now).released.hundredths, 'a month no longer kept gives nothing back').to.equal(
      0,
    );
  });

  it('when a read comes after period ends no entry posted yet, then it shows what the re-assessments will post', () => {
    const s = earn(rolling3, undefined, 600_000, at('2026-01-15T12:00:00Z')).state;
    const p = tierProgress(rolling3, s, at('2026-06-02T12:00:00Z'));
    expect(p.level.name).to.equal('Member');
    expect(tierAsOf(rolling3, s, at('2026-03-15T12:00:00Z')).level, 'Jan-Mar still holds January').to.equal('Gold');
    const silver = tierProgress(yearly, earn(yearly, undefined, 150_000, at('2026-05-01T12:00:00Z')).state, at('2026-05-02T00:00:00Z'));
    expect(silver.next).to.deep.equal({ name: 'Gold', neededHundredths: 350_000 });
  });

  it('when the wallet drops its tiers, then the next re-assessment clears the state', () => {
    const s = earn(yearly, undefined, 600_000, at('2026-05-01T12:00:00Z')).state;
    expect(reassess(null, s)).to.equal(null);
    expect(tierDue(null, s)?.getTime()).to.equal(s.until.getTime());
  });
});
