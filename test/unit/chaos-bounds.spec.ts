import { expect } from 'chai';
import { deadlineAfterFinal, latenessSince, PACE_WINDOW, type Drain, type Probe } from '../chaos/support/drain.js';

/** The bound of test/chaos/support/run.ts in its shape: a fixed part and a margin of 3 on the drain at its pace. */
const bound = (open: number, paceMs: number) => 18_000 + 3 * paceMs * Math.max(1, open);
const drainFrom = (since: number, graceMs: number): Drain => ({ since, floor: since + graceMs, finalsAt: [], bound });

describe('chaos bounds after the fault: the drain deadline and the API lateness', () => {
  it('when the drain finishes at the pace the grace assumed, then the deadline stays the grace', () => {
    const drain = drainFrom(0, 60_000);
    let deadline = 0;
    for (let i = 1; i <= 100; i++) deadline = deadlineAfterFinal(drain, i * 10, 100 - i); // 100 answers a second
    expect(deadline).to.equal(60_000);
  });

  it('when the machine grows busier and the drain slows to one answer a second, then the deadline follows it from each answer', () => {
    const drain = drainFrom(0, 30_000);
    const deadlines: number[] = [];
    for (let i = 1; i <= 40; i++) deadlines.push(deadlineAfterFinal(drain, i * 1000, 200 - i));
    // At the 40th answer: 160 open at 1 s each, times 3, behind the fixed part.
    expect(deadlines.at(-1)).to.equal(40_000 + 18_000 + 3 * 1000 * 160);
    expect(deadlines.every((d) => d > 30_000)).to.equal(true);
  });

  it('when the drain stops, then no later deadline comes: only a final answer moves it', () => {
    const drain = drainFrom(0, 30_000);
    let deadline = 0;
    for (let i = 1; i <= 30; i++) deadline = deadlineAfterFinal(drain, 5000 + i * 100, 10); // 10 a second, 10 open
    // 10 open at 100 ms each, times 3, behind the fixed part: the bound of the last answer, not of the clock.
    expect(deadline).to.equal(Math.max(30_000, 8000 + 18_000 + 3 * 100 * 10));
  });

  it(`when a slow start is followed by ${PACE_WINDOW} fast answers, then the pace is that of the fast ones and the deadline comes back down with it`, () => {
    const drain = drainFrom(0, 30_000);
    const slow = deadlineAfterFinal(drain, 20_000, 300); // the first answer 20 s after the fault
    let fast = 0;
    for (let i = 1; i <= PACE_WINDOW; i++) fast = deadlineAfterFinal(drain, 20_000 + i * 10, 300 - i);
    expect(slow).to.be.greaterThan(1_000_000);
    expect(fast).to.equal(20_200 + 18_000 + 3 * 10 * 280); // 280 open at 10 ms each: 46.6 s
  });

  it('when the API answers its liveness late while an exchange is open, then that lateness counts; earlier answers and refused probes do not', () => {
    const probes: Probe[] = [
      { startedAt: 0, ms: 9000, pending: false }, // ended at 9 s, before the exchange
      { startedAt: 10_000, ms: 4000, pending: false }, // overlaps it
      { startedAt: 15_000, pending: false }, // refused: no figure
      { startedAt: 16_000, ms: 200, pending: false },
    ];
    expect(latenessSince(probes, 12_000, 20_000)).to.equal(4000);
    expect(latenessSince(probes, 16_100, 20_000)).to.equal(200);
    expect(latenessSince(probes, 16_500, 20_000)).to.equal(0);
  });

  it('when a liveness probe is still in flight, then its age so far counts: a starved API is late, not hung', () => {
    const probes: Probe[] = [
      { startedAt: 0, ms: 5, pending: false },
      { startedAt: 1000, pending: true },
    ];
    expect(latenessSince(probes, 2000, 31_000)).to.equal(30_000);
    expect(latenessSince(probes, 2000, 61_000)).to.equal(60_000);
  });
});
