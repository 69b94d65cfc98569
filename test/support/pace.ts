/**
 * Timeouts from what a test measured, not constants (docs/testing.md, "Bounds from what a test
 * measured"): a long loop measures its first steps on the machine as it is now (other lanes, other
 * work) and gives the rest that pace times a stated margin.
 */
import type { Context } from 'mocha';

/** The margin on a measured pace. */
export const PACE_MARGIN = 3;

/**
 * Sets the running test's timeout (mocha counts it from now) to what is left at the measured pace:
 * `done` steps of `total` took the time since `startedAt`; the rest may take
 * {@link PACE_MARGIN} times as long per step. Returns the bound it set (ms).
 */
export function timeoutFromPace(ctx: Context, startedAt: number, done: number, total: number): number {
  const pace = (Date.now() - startedAt) / Math.max(1, done);
  const bound = Math.ceil(pace * (total - done) * PACE_MARGIN);
  ctx.timeout(bound);
  return bound;
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
