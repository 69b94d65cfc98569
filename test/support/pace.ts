/**
 * Timeouts from what a test measured, not constants (docs/testing.md, "Bounds from what a test
 * measured"): a long loop measures its first steps on the machine as it is now (other lanes, other
 * work) and gives the rest that pace times a stated margin.
 */
import type { Context } from 'mocha';

/** The margin on a measured pace. */
export const PACE_MARGIN = 3;

/**
 * A watchdog for a loop of `total` like steps, measured as it goes: after every `window` steps the
 * rest may take {@link PACE_MARGIN} times the slowest window's pace per step, and never less than
 * the time it was already given (mocha counts a timeout from when it is set). A hang trips it; a
 * machine that grows busier mid-loop (other lanes starting their fault scenarios, busy loops
 * beside the suite) raises the bound with it, where a pace measured once over the first steps and
 * held for the rest would time the loop out.
 */
export function paceWatchdog(ctx: Context, total: number, window = 50): (done: number) => void {
  let windowStart = Date.now();
  let slowestPace = 0;
  let deadline = 0;
  return (done) => {
    if (done === 0 || done % window !== 0) return;
    const now = Date.now();
    slowestPace = Math.max(slowestPace, (now - windowStart) / window);
    windowStart = now;
    deadline = Math.max(deadline, now + Math.ceil(slowestPace * (total - done) * PACE_MARGIN));
    ctx.timeout(deadline - now);
  };
}

/**
 * The test running now, for tests written as arrow functions (no `this`): a root hook of every
 * mocha process that loads this file.
 */
let running: Mocha.Runnable | undefined;
beforeEach(function () {
  running = this.currentTest;
});

/** Sets the running test's timeout to `ms` from now (a bound the test derived from what it measured). */
export function timeoutFromNow(ms: number): void {
  running?.timeout(Math.ceil(ms));
}
